/**
 * Where a browser asks for the client-exception words of the first of its languages the server
 * offers: `<path>?languages=fr-CH,fr,en` (./words-stage.ts).
 */
export const WORDS_PATH = '/_next/app-shell/words';
