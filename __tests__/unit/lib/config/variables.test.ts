// The table of variables is the one list: the docs and .env.example are rendered from it, every
// variable the code reads is in it, and every row's check refuses a bad value.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderEnvExample, renderReference } from '@lib/config/reference';
import { readVariable, VARIABLES, type Variable } from '@lib/config/variables';
import { REFUSED } from '../../../support/refused-values';
import { shellSources } from '../../../support/shell-sources';

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
  // Next's mark of the bundler it runs under, set before it reads next.config.ts.
  'TURBOPACK',
  // Next's mark of `next build`, under which the page cache's handler leaves the store alone.
  'NEXT_PHASE',
]);
/** The values a build bakes in (lib/config/build-values.ts), named APP_*: made from the rows. */
const BAKED = /^APP_/;

describe('the table', () => {
  it('lists every variable the app reads', () => {
    // The shell's files, not a product's: what a product's page or module reads is its own setting.
    const files = shellSources();
    expect(files).toEqual(
      expect.arrayContaining([path.join('lib', 'config', 'variables.ts'), 'instrumentation.ts']),
    );
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

describe('the PAGE_CACHE_URL check', () => {
  const read = (value: string) => {
    const problems: string[] = [];
    return { value: readVariable('pageCacheUrl', { PAGE_CACHE_URL: value }, problems), problems };
  };

  it.each([
    'redis://valkey:6379',
    'redis://valkey',
    'redis://valkey:6379/',
    'redis://:s3cret@valkey:6379/0',
    'rediss://user:s3cret@valkey.example:6380/15',
    'redis://10.0.0.7:6379/9',
  ])('takes %p as it is', (url) => {
    expect(read(url)).toEqual({ value: url, problems: [] });
  });

  it.each([
    ['valkey:6379', 'must start with redis:// or rediss:// (TLS)'],
    ['http://valkey:6379', 'must start with redis:// or rediss:// (TLS)'],
    ['not a url', 'is malformed: it is not a URL'],
    ['redis://', 'names no host'],
    ['redis://valkey:6379/zero', 'names a database that is not a number (redis://host:6379/0)'],
    ['redis://valkey:6379/123', 'names a database that is not a number (redis://host:6379/0)'],
    ['redis://valkey:6379/1/2', 'names a database that is not a number (redis://host:6379/0)'],
    ['redis://valkey:6379//1', 'names a database that is not a number (redis://host:6379/0)'],
  ])('refuses %p: %s, with no password in the line', (url, problem) => {
    // A password where the URL has room for one: a line that echoed the value would show it.
    const got = read(url.endsWith('://') ? url : url.replace('://', '://:pw-9f3k@'));
    expect(got.value).toBeNull();
    expect(got.problems).toHaveLength(1);
    expect(got.problems[0]).toContain(`PAGE_CACHE_URL ${problem}`);
    expect(got.problems[0]).not.toContain('pw-9f3k');
  });
});

describe('the SENTRY_TUNNEL_PATH check', () => {
  const read = (value: string) => {
    const problems: string[] = [];
    return { value: readVariable('sentryTunnelPath', { SENTRY_TUNNEL_PATH: value }, problems), problems };
  };

  it.each(['/404', '/500', '/api', '/API', '/Api'])('refuses %p, a path Next answers itself', (value) => {
    expect(read(value).problems).toEqual([
      expect.stringMatching(/^SENTRY_TUNNEL_PATH must be one path segment/),
    ]);
  });

  it.each(['/t7q2x', '/4040', '/apis', '/x_y-z'])('takes %p', (value) => {
    expect(read(value)).toEqual({ value, problems: [] });
  });
});
