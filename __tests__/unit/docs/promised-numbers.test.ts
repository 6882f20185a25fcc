// docs/promised-numbers.md accounts for every number with a unit that the docs state: each is a
// promise with the test that holds it at its edge, a promise still without one (so a missing test
// is in plain sight), or a figure (a measurement, an example) that promises nothing. A number added
// to a doc without a line there fails this test, and so does a line whose number the doc no longer
// states, or whose test is gone.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const LIST = 'docs/promised-numbers.md';

/** A number and its unit, as the docs write them: `256 characters`, `1 MiB`, `3,000 ms`. */
export const NUMBER_WITH_UNIT =
  /(?<![\w.,])\d[\d,.]*(?: |\n *|&nbsp;)(?:ms|s|KiB|MiB|GiB|KB|MB|B|bytes|characters|seconds|minutes|min|parameters|connections|%)(?![\w])/g;

/** Every such number in a doc, once each, its space normalised. */
function numbersIn(text: string): Set<string> {
  return new Set(
    [...text.matchAll(NUMBER_WITH_UNIT)].map(([found]) => found.replace(/\s+|&nbsp;/, ' ').replace(/,$/, '')),
  );
}

interface Row {
  section: 'pinned' | 'unpinned' | 'figures';
  doc: string;
  numbers: string[];
  /** Pinned rows: the test file and a part of the test's title. */
  test?: { file: string; title: string };
  line: number;
}

/** The rows of the list's three tables, by the heading above each. */
function rowsOfList(): Row[] {
  const rows: Row[] = [];
  let section: Row['section'] | null = null;
  readFileSync(path.join(ROOT, LIST), 'utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.startsWith('## ')) {
        section = text.startsWith('## Promised, without')
          ? 'unpinned'
          : text.startsWith('## Promised, with')
            ? 'pinned'
            : text.startsWith('## Figures')
              ? 'figures'
              : null;
        return;
      }
      if (!section || !text.startsWith('| ') || /^\| (doc |-)/.test(text)) return;
      const cells = text
        .slice(2, -2)
        .split(' | ')
        .map((cell) => cell.trim());
      const numbers = cells[1]!.split('; ').map((number) => number.replaceAll('`', ''));
      const row: Row = { section, doc: cells[0]!, numbers, line: index + 1 };
      if (section === 'pinned') {
        const test = /^`([^`]+)` › (.+)$/.exec(cells[3] ?? '');
        if (test) row.test = { file: test[1]!, title: test[2]! };
      }
      rows.push(row);
    });
  return rows;
}

const docs = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md') && `docs/${name}` !== LIST)
    .map((name) => `docs/${name}`),
];

describe('the list of promised numbers', () => {
  const rows = rowsOfList();

  it('has promises and figures, and every promise has its test', () => {
    for (const section of ['pinned', 'figures'])
      expect(rows.filter((row) => row.section === section).length).toBeGreaterThan(0);
    expect(
      rows
        .filter((row) => row.section === 'unpinned')
        .map((row) => `line ${row.line}: ${row.numbers.join('; ')}`),
    ).toEqual([]);
  });

  it.each(docs)('accounts for every number %s states', (doc) => {
    const listed = new Set(rows.filter((row) => row.doc === doc).flatMap((row) => row.numbers));
    const stated = numbersIn(readFileSync(path.join(ROOT, doc), 'utf8'));
    expect([...stated].filter((number) => !listed.has(number))).toEqual([]);
    // And lists nothing the doc no longer states.
    expect([...listed].filter((number) => !stated.has(number))).toEqual([]);
  });

  it('names only docs that exist', () => {
    expect(
      rows.filter((row) => !docs.includes(row.doc)).map((row) => `${row.doc} (line ${row.line})`),
    ).toEqual([]);
  });

  it('names, for each number pinned, a test that exists', () => {
    const broken = rows
      .filter((row) => row.section === 'pinned')
      .filter((row) => {
        if (!row.test || !existsSync(path.join(ROOT, row.test.file))) return true;
        return !readFileSync(path.join(ROOT, row.test.file), 'utf8').includes(row.test.title);
      })
      .map(
        (row) => `line ${row.line}: ${row.test ? `${row.test.file} › ${row.test.title}` : 'no test named'}`,
      );
    expect(broken).toEqual([]);
  });
});

describe('NUMBER_WITH_UNIT', () => {
  it.each([
    ['at most 1 MiB, 16 KiB/s', ['1 MiB', '16 KiB']],
    ['within 256 characters, or 3,000 ms', ['256 characters', '3,000 ms']],
    ['113,385 B and 2 s.', ['113,385 B', '2 s']],
    ['a 30&nbsp;s wait', ['30 s']],
    ['HTTP/1.1, v24.21.0, 5xx, s-maxage=600, 404s, a1 s', []],
  ])('reads %p as %p', (text, expected) => {
    expect([...numbersIn(text)]).toEqual(expected);
  });
});
