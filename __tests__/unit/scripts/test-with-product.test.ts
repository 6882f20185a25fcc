// `npm run test:with-product` / `test:next-latest` (scripts/test-with-product.js): which Next it
// takes, what its options mean, and how it ends (scripts/lib/with-product.js). CI runs the command itself.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXAMPLE_PRODUCT, layExampleProduct } from '../../../scripts/lib/example-product';
import { newestRelease, outcome, parseArgs, summary } from '../../../scripts/lib/with-product';

describe('the newest Next release of the pinned major', () => {
  it('is the highest release of that major, prereleases and other majors left out', () => {
    const versions = ['15.9.0', '16.4.5', '16.4.6', '16.10.1', '16.11.0-canary.3', '17.0.0'];
    expect(newestRelease(versions, '16.4.6')).toBe('16.10.1');
  });

  it('is the pinned version when the registry has none newer, or lists nothing usable', () => {
    expect(newestRelease(['16.4.5', '16.5.0-canary.38'], '16.4.6')).toBe('16.4.6');
    expect(newestRelease(['not-a-version'], '16.4.6')).toBe('16.4.6');
  });
});

describe('its options', () => {
  it('run the pinned Next, failing on a failure, and remove the copy, by default', () => {
    expect(parseArgs([])).toEqual({ next: 'pinned', reportOnly: false, keep: false });
  });

  it('take the newest release, only report, and keep the copy when asked', () => {
    expect(parseArgs(['--next=latest', '--report-only', '--keep'])).toEqual({
      next: 'latest',
      reportOnly: true,
      keep: true,
    });
    expect(parseArgs(['--next=pinned']).next).toBe('pinned');
  });

  it('refuse an option they do not know, naming the ones they do', () => {
    expect(() => parseArgs(['--next=canary'])).toThrow(
      'Unknown option --next=canary: use --next=latest|pinned, --report-only, --keep.',
    );
  });
});

describe('its last line', () => {
  it('names the Next version and how each step ended', () => {
    expect(
      summary('16.5.0', [
        { name: 'unit tests', status: 0 },
        { name: 'browser tests', status: 1 },
      ]),
    ).toBe('[with-product] the example product on Next 16.5.0: unit tests passed, browser tests FAILED');
  });
});

describe('how it ends', () => {
  const passed = [
    { name: 'unit tests', status: 0 },
    { name: 'browser tests', status: 0 },
  ];
  const failed = [
    { name: 'unit tests', status: 0 },
    { name: 'browser tests', status: 2 },
  ];

  it('passes when every step passed, saying the version was the pinned one', () => {
    expect(outcome({ nextVersion: '16.4.6', pinned: '16.4.6', reportOnly: false }, passed)).toEqual({
      line: '[with-product] the example product on Next 16.4.6: unit tests passed, browser tests passed (the pinned version)',
      exitCode: 0,
    });
  });

  it('fails when any step failed, naming the pinned version beside a newer one', () => {
    expect(outcome({ nextVersion: '16.5.0', pinned: '16.4.6', reportOnly: false }, failed)).toEqual({
      line: '[with-product] the example product on Next 16.5.0: unit tests passed, browser tests FAILED (pinned: 16.4.6)',
      exitCode: 1,
    });
  });

  it('fails when no step ran at all', () => {
    expect(outcome({ nextVersion: '16.4.6', pinned: '16.4.6', reportOnly: false }, []).exitCode).toBe(1);
  });

  it('only reports a failure when asked to (CI, for the newest release)', () => {
    expect(outcome({ nextVersion: '16.5.0', pinned: '16.4.6', reportOnly: true }, failed)).toEqual({
      line: expect.stringContaining('browser tests FAILED (pinned: 16.4.6)'),
      exitCode: 0,
    });
  });
});

describe('laying the example product over a copy of the shell (scripts/lib/example-product.js)', () => {
  const shellCopy = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'lay-product-'));
    writeFileSync(path.join(dir, 'next.config.ts'), '// the shell\n');
    mkdirSync(path.join(dir, 'lib/health'), { recursive: true });
    writeFileSync(path.join(dir, 'lib/health/dependencies.ts'), '// the shell: no checks\n');
    return dir;
  };
  const read = (dir: string, file: string) => readFileSync(path.join(dir, file), 'utf8');

  it("puts each product file at its path, the shell's next.config beneath the product's", () => {
    const dir = shellCopy();
    layExampleProduct(dir, { proxy: true });
    expect(read(dir, 'shell.next.config.ts')).toBe('// the shell\n');
    expect(read(dir, 'next.config.ts')).toBe(read(EXAMPLE_PRODUCT, 'next.config.ts'));
    expect(read(dir, 'lib/health/dependencies.ts')).toBe(read(EXAMPLE_PRODUCT, 'lib/health/dependencies.ts'));
    expect(existsSync(path.join(dir, 'pages/products/[id].tsx'))).toBe(true);
    expect(existsSync(path.join(dir, 'proxy.ts'))).toBe(true);
    // Its README describes the example; in a team's tree it would replace the shell's.
    expect(existsSync(path.join(dir, 'README.md'))).toBe(false);
  });

  it('leaves out the proxy when asked, and over a copy that holds the product adds only the proxy', () => {
    const dir = shellCopy();
    layExampleProduct(dir, { proxy: false });
    expect(existsSync(path.join(dir, 'proxy.ts'))).toBe(false);
    writeFileSync(path.join(dir, 'next.config.ts'), '// the team changed it\n');
    layExampleProduct(dir, { proxy: true });
    expect(read(dir, 'next.config.ts')).toBe('// the team changed it\n');
    expect(read(dir, 'shell.next.config.ts')).toBe('// the shell\n');
    expect(read(dir, 'proxy.ts')).toBe(read(EXAMPLE_PRODUCT, 'proxy.ts'));
  });
});
