// Every language the screens have words in, by its tag. SCREEN_LANGUAGES (lib/config/variables.ts)
// chooses which of them a build offers; adding one is a folder beside ./en/ and its line here
// (docs/error-screens.md). For the server and the build: browsers load single states instead
// (lib/language/browser-copy.ts), so this table never reaches a page's JavaScript.
import { copy as ar } from './ar';
import { copy as de } from './de';
import { copy as en } from './en';
import { copy as es } from './es';
import { copy as fr } from './fr';
import type { LanguageCopy } from './types';

export const LANGUAGE_COPY: Readonly<Record<string, LanguageCopy>> = { en, fr, de, es, ar };

/** The words of `language`, or English's when there are none (a build always checks its languages). */
export function copyIn(language: string | undefined): LanguageCopy {
  return (language !== undefined && Object.hasOwn(LANGUAGE_COPY, language) ? LANGUAGE_COPY[language] : en)!;
}
