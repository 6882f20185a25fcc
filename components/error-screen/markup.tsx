// A screen's markup as ErrorScreen renders it where nothing runs (its <Head> renders nothing here):
// what the build's static documents (lib/error-pages/static-screen.ts) are given as their body.
import { renderToStaticMarkup } from 'react-dom/server';
import type { ScreenMarkup } from '../../lib/error-pages/static-screen';
import { ErrorScreen } from './ErrorScreen';

export const screenMarkup: ScreenMarkup = (copy, words) =>
  renderToStaticMarkup(<ErrorScreen copy={copy} words={words} />);
