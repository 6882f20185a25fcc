// Every language has words for every screen, and they are its own: a language added with a state
// missing, an empty sentence or English left in place fails here, not in front of a visitor.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { LANGUAGE_COPY, copyIn } from '@lib/screens/languages';
import type { CommonCopy } from '@lib/screens/types';

const FOLDER = path.resolve(__dirname, '../../../../lib/screens');
const STATES = ['not-found', 'bad-request', 'server-error', 'client-exception', 'offline', 'unavailable'];
const english = LANGUAGE_COPY.en!;

/** Every string of a language's words, with where it is. */
function strings(language: string): Array<[string, string]> {
  const { common, screens } = LANGUAGE_COPY[language]!;
  const { help, reference, tryAgain, reload, goBack, goHome } = common as CommonCopy;
  const actions = { tryAgain, reload, goBack, goHome };
  return [
    ...Object.entries(help).map(([key, text]) => [`help.${key}`, text] as [string, string]),
    ...Object.entries(reference).map(([key, text]) => [`reference.${key}`, text] as [string, string]),
    ...Object.entries(actions).map(([key, text]) => [key, String(text)] as [string, string]),
    ...Object.values(screens).flatMap((screen) => [
      [`${screen.kind}.heading`, screen.heading] as [string, string],
      ...screen.paragraphs.map((text, index) => [`${screen.kind}.${index}`, text] as [string, string]),
    ]),
  ];
}

describe('the languages’ words', () => {
  it('are one folder per language, each listed in the table', () => {
    const folders = readdirSync(FOLDER, { withFileTypes: true }).filter((entry) => entry.isDirectory());
    expect(folders.map((entry) => entry.name).sort()).toEqual(Object.keys(LANGUAGE_COPY).sort());
  });

  it.each(Object.keys(LANGUAGE_COPY))('%s: one file per state, and its common words', (language) => {
    const files = readdirSync(path.join(FOLDER, language)).sort();
    expect(files).toEqual([...STATES.map((state) => `${state}.ts`), 'common.ts', 'index.ts'].sort());
    const { common, screens } = LANGUAGE_COPY[language]!;
    expect(common.lang).toBe(language);
    expect(Object.keys(screens).sort()).toEqual([...STATES].sort());
    for (const [kind, screen] of Object.entries(screens)) {
      expect(screen.kind).toBe(kind);
      expect(screen.paragraphs.length).toBe(english.screens[screen.kind].paragraphs.length);
    }
  });

  it.each(Object.keys(LANGUAGE_COPY).filter((language) => language !== 'en'))(
    '%s: every sentence is written, and none is English’s left in place',
    (language) => {
      const englishTexts = new Set(strings('en').map(([, text]) => text));
      for (const [where, text] of strings(language)) {
        if (!where.startsWith('help.after')) expect([where, text.trim().length > 0]).toEqual([where, true]);
        if (text.trim().length > 1) expect([where, englishTexts.has(text)]).toEqual([where, false]);
      }
    },
  );

  it('are written right to left in Arabic, left to right in the rest', () => {
    expect(
      Object.fromEntries(
        Object.entries(LANGUAGE_COPY).map(([language, { common }]) => [language, common.dir]),
      ),
    ).toEqual({ en: 'ltr', fr: 'ltr', de: 'ltr', es: 'ltr', ar: 'rtl' });
  });

  it('fall back to English for a language the table does not have', () => {
    expect(copyIn('xx')).toBe(english);
    expect(copyIn(undefined)).toBe(english);
    expect(copyIn('constructor')).toBe(english);
  });
});
