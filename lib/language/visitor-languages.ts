/**
 * `?languages=` and the browser's `navigator.languages`, for the server to choose from (it chooses
 * as it does for every screen, lib/language/negotiate.ts): asked of by the client-exception words
 * (./browser-copy.ts) and the service worker's script (lib/service-worker/register.ts), whose own
 * requests do not always carry the page's Accept-Language. Language tags need no escaping in a
 * query (letters, digits, `-`, and the commas between them); whatever a stranger sends instead is
 * read as far as a header is.
 */
export const languagesQuery = () => `?languages=${navigator.languages}`;
