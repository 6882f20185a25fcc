// What Sentry may collect, for the browser and the server alike. Sentry v11 replaced
// `sendDefaultPii` with `dataCollection` and collects more by default, so every field is set.
import type { DataCollection } from '@sentry/core';

export const DATA_COLLECTION: DataCollection = {
  userInfo: false,
  cookies: false,
  // The user agent is the one request header an event may carry.
  httpHeaders: { request: { allow: ['user-agent'] }, response: false },
  httpBodies: [],
  // Kept, minus anything secret-looking: Sentry filters its own list, then scrubEvent ours.
  urlQueryParams: true,
  stackFrameVariables: false,
};
