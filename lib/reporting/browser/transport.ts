// How the browser's reports reach the tunnel: the SDK's fetch transport inside its offline
// transport, which keeps in IndexedDB what could not be handed over and sends it when the
// connection returns ('online'), on the next page, or after a back-off. The SDK keeps an envelope
// only when the send throws (offline, the server unreachable); an answer, even a 5xx, counts as
// delivered. So an answer of 5xx is made to throw here: the tunnel says 503 ("try later") when the
// server's own queue is full, and 5xx of any kind means the report did not arrive.
import { makeBrowserOfflineTransport, makeFetchTransport } from '@sentry/react';

type BrowserTransportOptions = Parameters<typeof makeFetchTransport>[0];

/** Reports kept in the browser at most (IndexedDB); the SDK drops the newest past it. */
export const KEPT_IN_BROWSER = 30;

const fetchOrThrowOn5xx: typeof fetch = (input, init) =>
  fetch(input, init).then((response) => {
    // Stryker disable next-line StringLiteral: the SDK reads no message, only that the send threw.
    if (response.status >= 500) throw new Error(`The tunnel answered ${response.status}; kept to send later`);
    return response;
  });

const offline = makeBrowserOfflineTransport((options: BrowserTransportOptions) =>
  makeFetchTransport(options, fetchOrThrowOn5xx),
);

/** The client's transport. What was kept on an earlier page is sent on this one (flushAtStartup). */
export const tunnelTransport = (options: BrowserTransportOptions) =>
  offline({ ...options, flushAtStartup: true, maxQueueSize: KEPT_IN_BROWSER });
