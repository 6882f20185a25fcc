import { isSafeRelative, parseManifest, planCarry } from '@lib/fleet/carried';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const build = (id: string, daysAgo: number) => ({
  id,
  builtAt: new Date(NOW - daysAgo * DAY).toISOString(),
  files: [`${id}/_buildManifest.js`],
});

describe('which earlier builds a build carries', () => {
  it('keeps each build once, never itself, the newest first', () => {
    const { kept } = planCarry('own', [build('b', 2), build('own', 0), build('a', 1), build('b', 2)], {
      builds: 5,
      days: 14,
      now: NOW,
    });
    expect(kept.map(({ id }) => id)).toEqual(['a', 'b']);
  });

  it('leaves out builds beyond the count and the age, saying why', () => {
    const { kept, left } = planCarry('own', [build('a', 1), build('b', 2), build('c', 3), build('old', 15)], {
      builds: 2,
      days: 14,
      now: NOW,
    });
    expect(kept.map(({ id }) => id)).toEqual(['a', 'b']);
    expect(left).toEqual([
      { id: 'c', why: 'count' },
      { id: 'old', why: 'age' },
    ]);
  });

  it('carries nothing with a count of 0', () => {
    expect(planCarry('own', [build('a', 1)], { builds: 0, days: 14, now: NOW }).kept).toEqual([]);
  });

  it('keeps a build exactly as old as the limit, not one a moment older', () => {
    const { kept, left } = planCarry(
      'own',
      [build('edge', 14), { ...build('older', 14), builtAt: new Date(NOW - 14 * DAY - 1).toISOString() }],
      {
        builds: 5,
        days: 14,
        now: NOW,
      },
    );
    expect(kept.map(({ id }) => id)).toEqual(['edge']);
    expect(left).toEqual([{ id: 'older', why: 'age' }]);
  });

  it('leaves out a build whose date cannot be read', () => {
    const undated = { id: 'x', builtAt: 'yesterday', files: [] };
    expect(planCarry('own', [undated], { builds: 3, days: 14, now: NOW }).left).toEqual([
      { id: 'x', why: 'age' },
    ]);
  });
});

describe('a carried-builds manifest', () => {
  it('reads back what a build wrote', () => {
    const builds = [build('a', 0), build('b', 1)];
    expect(parseManifest(JSON.stringify({ builds }))).toEqual(builds);
  });

  it.each([
    ['not JSON', '{'],
    ['no list', '{"builds":{}}'],
    ['a build without files', '{"builds":[{"id":"a","builtAt":"2026-11-25T00:00:00Z"}]}'],
    [
      'a file outside static/',
      '{"builds":[{"id":"a","builtAt":"2026-11-25T00:00:00Z","files":["../../etc/passwd"]}]}',
    ],
    ['an absolute file', '{"builds":[{"id":"a","builtAt":"2026-11-25T00:00:00Z","files":["/etc/passwd"]}]}'],
    ['a bad date', '{"builds":[{"id":"a","builtAt":"soon","files":[]}]}'],
    ['a date that is not text', '{"builds":[{"id":"a","builtAt":2026,"files":[]}]}'],
    ['an id that is not text', '{"builds":[{"id":7,"builtAt":"2026-11-25T00:00:00Z","files":[]}]}'],
    ['a build that is not an object', '{"builds":[null]}'],
    ['a file that is not text', '{"builds":[{"id":"a","builtAt":"2026-11-25T00:00:00Z","files":[42]}]}'],
    [
      'one good file and one outside static/',
      '{"builds":[{"id":"a","builtAt":"2026-11-25T00:00:00Z","files":["chunks/a.js","../b.js"]}]}',
    ],
  ])('is refused with %s', (_, text) => {
    expect(parseManifest(text)).toBeNull();
  });

  it('names only paths inside static/', () => {
    expect(isSafeRelative('chunks/a.js')).toBe(true);
    for (const bad of ['', '/a', 'a/', 'a/../b', './a', 'a//b', 'a\\b', 'a\0b', '..', 42, null])
      expect(isSafeRelative(bad)).toBe(false);
  });
});
