// The table of variables is the one list: the docs and .env.example are rendered from it, every
// variable the code reads is in it, and every row's check refuses a bad value.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, renderReference } from '../../../../lib/config/reference';
import { readVariable, VARIABLES, type Variable } from '../../../../lib/config/variables';
import { REFUSED } from '../../../support/refused-values';

const ROOT = path.resolve(__dirname, '../../../..');
const rows = Object.values(VARIABLES) as Variable<unknown>[];
const names = rows.map((row) => row.name);

describe('the rendered files', () => {
  // `npm run settings:docs` runs this file with UPDATE_SETTINGS_DOCS=1, which writes them instead.
  it.each([
    ['docs/configuration.md', renderReference],
    ['.env.example', renderEnvExample],
  ])('%s is what the table renders', (file, render) => {
    const where = path.join(ROOT, file);
    if (process.env.UPDATE_SETTINGS_DOCS === '1') writeFileSync(where, render());
    expect(readFileSync(where, 'utf8')).toBe(render());
  });
});

describe('.env.example', () => {
  it('copied as .env, starts and builds: no line sets a variable to what its row refuses', () => {
    const env: Record<string, string> = {};
    for (const [, name, value] of renderEnvExample().matchAll(/^([A-Z_][A-Z0-9_]*)=(.*)$/gm))
      env[name!] = value!;
    expect(Object.keys(env).length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const key of Object.keys(VARIABLES) as (keyof typeof VARIABLES)[]) readVariable(key, env, problems);
    expect(problems).toEqual([]);
  });
});

/** Variables the code may read that are not the app's settings: Node's, Next's, the platform's. */
const NOT_SETTINGS = new Set([
  'NODE_ENV',
  'NEXT_RUNTIME',
  'NEXT_TELEMETRY_DISABLED',
  '__NEXT_PRIVATE_STANDALONE_CONFIG',
  // Set by Kubernetes; changes SHUTDOWN_DRAIN_MS's default.
  'KUBERNETES_SERVICE_HOST',
  // The test builds only (next.config.ts, __tests__/e2e/__fixtures__).
  'APP_SHELL_FIXTURES',
  // Which planted bug is active: read only by the copies StrykerJS instruments (npm run test:mutation).
  '__STRYKER_ACTIVE_MUTANT__',
  // Where the tests and benchmarks find Chromium (scripts/lib/chromium.js).
  'CHROMIUM_PATH',
  // The Dockerfile's image to carry build files from: it becomes KEEP_STATIC_FROM (docs/fleet.md).
  'PREVIOUS_IMAGE',
]);
/** The values a build bakes in (lib/config/build-values.ts), named APP_*: made from the rows. */
const BAKED = /^APP_/;

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx|js|cjs)$/.test(file) && !file.includes('__fixtures__'))
    .map((file) => path.join(dir, file));
}

describe('the table', () => {
  it('lists every variable the app reads', () => {
    const files = [
      ...['lib', 'pages', 'components', 'scripts'].flatMap(sourceFiles),
      'next.config.ts',
      'instrumentation.ts',
    ];
    const read = new Set<string>();
    for (const file of files) {
      const source = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of source.matchAll(/\b(?:process\.)?env(?:\.|\[['"])([A-Z_][A-Z0-9_]+)/g))
        read.add(match[1]!);
    }
    // The Dockerfile passes build-time variables as ARGs.
    for (const match of readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').matchAll(/^ARG ([A-Z_]+)/gm))
      if (match[1] !== 'NODE_IMAGE') read.add(match[1]!);
    const unlisted = [...read].filter(
      (name) => !names.includes(name) && !NOT_SETTINGS.has(name) && !BAKED.test(name),
    );
    expect(unlisted).toEqual([]);
    expect(read.size).toBeGreaterThan(10);
  });

  it('names each variable once', () => {
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('every check', () => {
  it('has a list of refused values for every row', () => {
    expect(Object.keys(REFUSED).sort()).toEqual([...names].sort());
  });

  const cases = rows.flatMap((row, index) =>
    (REFUSED[row.name] ?? []).map((value) => [row.name, value, Object.keys(VARIABLES)[index]!] as const),
  );

  it.each(cases)('refuses %s=%p with one sentence naming it, and keeps the default', (name, value, key) => {
    const problems: string[] = [];
    const got = readVariable(key as keyof typeof VARIABLES, { [name]: value }, problems);
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${name} `))]);
    expect(got).toEqual(readVariable(key as keyof typeof VARIABLES, {}, []));
  });
});
