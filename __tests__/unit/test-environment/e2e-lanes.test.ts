// The end-to-end suite's two lanes (support/e2e-lanes.cjs): every file in one, and every file that
// serves a reporting build or listens on its ingest in the `ingest` lane, where no two run at once.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { reachedFrom } from '../../support/import-graph';
import { currentLane, filesByLane, testMatch } from '../../support/e2e-lanes.cjs';

const ROOT = path.resolve(__dirname, '../../..');
/** The support modules that serve the reporting builds' ingest, or listen on its port. */
const INGEST_MODULES = [
  '__tests__/support/ingest.ts',
  '__tests__/support/reporting-build.ts',
  '__tests__/support/reporting-stack.ts',
];
/** These make every build and serve none: a file reaches them to ask for its build, in either lane. */
const BUILDS_ONLY = ['__tests__/support/builds.ts', '__tests__/support/product-build.ts'];

const allFiles = readdirSync(path.join(ROOT, '__tests__/e2e'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `__tests__/e2e/${name}`)
  .sort();

describe('the end-to-end lanes', () => {
  const lanes = filesByLane();

  it('put every file in one lane, and each lane has files', () => {
    expect([...lanes.ingest, ...lanes.other].sort()).toEqual(allFiles);
    expect(lanes.ingest.length).toBeGreaterThan(0);
    expect(lanes.other.length).toBeGreaterThan(0);
  });

  it.each(allFiles)('put %s in the ingest lane if it, or a helper it uses, serves the ingest', (file) => {
    const { files } = reachedFrom(ROOT, [file], 'nodejs', BUILDS_ONLY);
    const reached = INGEST_MODULES.filter((module) => files.has(module)).map((module) =>
      files.get(module)!.join(' → '),
    );
    const lane = lanes.ingest.includes(file) ? 'ingest' : 'other';
    // The chains say how the file reaches the ingest, when it should not be where it is.
    if (reached.length > 0) expect({ file, lane, reached }).toEqual({ file, lane: 'ingest', reached });
  });
});

describe('which files a Jest process of the suite runs', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('every file, without lanes (npm run test:e2e)', () => {
    delete process.env.E2E_LANES;
    delete process.env.E2E_LANE;
    expect(currentLane()).toBeUndefined();
    expect(testMatch()).toEqual(['<rootDir>/__tests__/e2e/**/*.test.ts']);
  });

  it('the ingest lane’s, in npm test’s own process; the other lane’s, in the child it starts', () => {
    process.env.E2E_LANES = '2';
    delete process.env.E2E_LANE;
    expect(testMatch()).toEqual(filesByLane().ingest.map((file) => `<rootDir>/${file}`));
    process.env.E2E_LANE = 'other';
    expect(testMatch()).toEqual(filesByLane().other.map((file) => `<rootDir>/${file}`));
  });
});
