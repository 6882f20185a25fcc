// French: every screen's words, for the server and the build (browsers load single states).
import type { LanguageCopy } from '../types';
import { common } from './common';
import { notFound } from './not-found';
import { badRequest } from './bad-request';
import { serverError } from './server-error';
import { clientException } from './client-exception';
import { offline } from './offline';
import { unavailable } from './unavailable';

export const copy: LanguageCopy = {
  common,
  screens: {
    'not-found': notFound,
    'bad-request': badRequest,
    'server-error': serverError,
    'client-exception': clientException,
    offline: offline,
    unavailable: unavailable,
  },
};
