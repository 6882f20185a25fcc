// The development loop bench's arithmetic and shape (bench/lib/dev-loop-figures.js, bench/lib/parts.js);
// what it measures runs only under `npm run bench -- dev`. No wall-clock time is asserted here:
// the samples are made up.
import { AIM, devLoopRows, KINDS, rowLine } from '../../../bench/lib/dev-loop-figures';
import { partsAsked } from '../../../bench/lib/parts';

const samples = {
  shell: { firstStart: [9000, 7000, 8000], restart: [3100, 2900, 3000, 5000], hotReload: [60, 80, 70] },
  bare: { firstStart: [3000, 2000, 2500], restart: [2000, 2600, 2400, 2200], hotReload: [50, 40, 70] },
};

describe('the development loop’s rows', () => {
  it('gives each kind of sample its medians, this app over bare, in the order the table prints', () => {
    const rows = devLoopRows(samples);
    expect(rows.map((row) => [row.shell, row.bare])).toEqual([
      [8000, 2500],
      // Of an even count, the mean of the middle two.
      [3050, 2300],
      [70, 50],
    ]);
    expect(rows.map((row) => row.ratio)).toEqual([8000 / 2500, 3050 / 2300, 70 / 50]);
    expect(rows.map((row) => row.name)).toEqual(KINDS.map((kind) => kind.name));
  });

  it('holds a first start, a restart and a hot reload to 1.3 × bare', () => {
    const [first, restart, reload] = devLoopRows(samples);
    expect(AIM).toBe(1.3);
    expect(first).toMatchObject({ target: '≤ 1.3 × bare', met: false });
    expect(restart).toMatchObject({ target: '≤ 1.3 × bare', met: false });
    expect(reload).toMatchObject({ target: '≤ 1.3 × bare', met: false });
  });

  it('meets the aim at exactly 1.3 × bare, and misses it just above', () => {
    const at = (shell: number) =>
      devLoopRows({
        shell: { firstStart: [shell], restart: [shell], hotReload: [shell] },
        bare: { firstStart: [1000], restart: [1000], hotReload: [1000] },
      }).map((row) => row.met);
    expect(at(1300)).toEqual([true, true, true]);
    expect(at(1301)).toEqual([false, false, false]);
  });

  it('counts the samples a median is of as the fewer of the two', () => {
    const rows = devLoopRows({
      shell: { ...samples.shell, hotReload: [1, 2, 3, 4, 5] },
      bare: { ...samples.bare, hotReload: [1, 2, 3, 4] },
    });
    expect(rows.map((row) => row.samples)).toEqual([3, 4, 4]);
  });

  it('prints a row as one line: both medians in whole ms, the ratio, and the aim', () => {
    const [first, restart] = devLoopRows(samples);
    expect(rowLine(restart!)).toBe(
      "restart to the page’s first 200: 3,050 ms against bare next dev's 2,300 ms, 1.33× (median of 4, ≤ 1.3 × bare: MISSED)",
    );
    expect(rowLine({ ...restart!, met: true })).toContain('≤ 1.3 × bare: met)');
    expect(rowLine(first!)).toBe(
      "first start (nothing built) to the page’s first 200: 8,000 ms against bare next dev's 2,500 ms, 3.20× (median of 3, ≤ 1.3 × bare: MISSED)",
    );
  });
});

describe('the parts of npm run bench', () => {
  it('are every part when nothing names any', () => {
    expect(partsAsked([], undefined)).toBeUndefined();
    expect(partsAsked([], '')).toBeUndefined();
    expect(partsAsked([''], ' , ')).toBeUndefined();
  });

  it('are those named after the command (`npm run bench -- dev`)', () => {
    expect(partsAsked(['dev'], undefined)).toEqual(['dev']);
  });

  it('are those BENCH_ONLY names, and those after the command too', () => {
    expect(partsAsked([], 'observability, tunnel')).toEqual(['observability', 'tunnel']);
    expect(partsAsked(['dev'], 'starts')).toEqual(['dev', 'starts']);
  });
});
