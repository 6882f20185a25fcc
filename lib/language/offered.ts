// Which languages the screens are offered in, and which one a visitor gets when none of theirs is:
// SCREEN_LANGUAGES and SCREEN_DEFAULT_LANGUAGE, checked and baked in by `npm run build`
// (lib/config/build-time.ts). Read here, literally, so the browser's bundle gets constants.

/** The languages on offer, the default first. */
export function offeredLanguages(): readonly [string, ...string[]] {
  const fallback = defaultLanguage();
  const listed = (process.env.APP_SCREEN_LANGUAGES || fallback).split(',');
  return [fallback, ...listed.filter((language) => language !== fallback)];
}

/** The language of every answer no preference of the visitor's matches. */
export function defaultLanguage(): string {
  return process.env.APP_SCREEN_DEFAULT_LANGUAGE || 'en';
}
