// The upload of source maps to Sentry, against a local stand-in for the API endpoints sentry-cli
// calls, and what a build without credentials does with its maps.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUILD_OUTPUT } from '../support/builds';
import { REPORTING_DIST, ROOT } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { type SentryApi, startSentryApi } from '../support/sentry-api';
import { mapsByDebugId } from '../support/source-maps';

const build = reportingBuild();
const TOKEN = 'sntrys_stand_in_token';
let api: SentryApi;
let dist: string;

beforeEach(async () => {
  api = await startSentryApi();
  // A copy of what the build kept, so the upload (which removes the maps) leaves the build alone.
  dist = mkdtempSync(path.join(tmpdir(), 'app-shell-upload-'));
  cpSync(path.join(ROOT, REPORTING_DIST, 'sourcemaps'), path.join(dist, 'sourcemaps'), { recursive: true });
  cpSync(
    path.join(ROOT, REPORTING_DIST, 'required-server-files.json'),
    path.join(dist, 'required-server-files.json'),
  );
});

afterEach(async () => {
  await api.stop();
  rmSync(dist, { recursive: true, force: true });
});

/** `npm run sourcemaps:upload`, asynchronously: the stand-in API answers from this process. */
function upload(
  credentials: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_DIST_DIR: dist, ...credentials };
  for (const name of ['SENTRY_AUTH_TOKEN', 'SENTRY_ORG', 'SENTRY_PROJECT'])
    if (!(name in credentials)) delete env[name];
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'sourcemaps:upload'],
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ status, stdout, stderr });
      },
    );
  });
}

describe('uploading source maps', () => {
  it('creates the release, uploads every map with its debug ID, finalizes, and removes the maps', async () => {
    const kept = mapsByDebugId(path.join(dist, 'sourcemaps'));
    expect(kept.size).toBeGreaterThan(10);
    const result = await upload({
      SENTRY_URL: api.url,
      SENTRY_AUTH_TOKEN: TOKEN,
      SENTRY_ORG: 'acme',
      SENTRY_PROJECT: 'shop',
    });
    expect(result.stderr).not.toContain('error');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('Source maps uploaded to Sentry and removed from the build.');

    const created = api.calls.find(
      (call) => call.method === 'POST' && call.path === '/api/0/organizations/acme/releases/',
    );
    expect(created?.json).toEqual(expect.objectContaining({ version: build.release, projects: ['shop'] }));
    expect(
      api.calls.some((call) => call.method === 'PUT' && call.path.endsWith(`/releases/${build.release}/`)),
    ).toBe(true);
    for (const call of api.calls) expect(call.authorization).toBe(`Bearer ${TOKEN}`);

    // The artifact bundle Sentry assembled: every kept map, linked to its bundle by debug ID.
    const manifest = JSON.parse(api.bundleFiles.get('manifest.json')!.toString()) as {
      files: Record<string, { url: string; type: string; headers?: Record<string, string> }>;
    };
    const uploadedIds = new Set(
      Object.values(manifest.files)
        .filter((file) => file.type === 'source_map')
        .map((file) => file.headers?.['debug-id']),
    );
    for (const id of kept.keys()) expect(uploadedIds).toContain(id);
    const minified = Object.values(manifest.files).filter((file) => file.type === 'minified_source');
    expect(minified.length).toBeGreaterThan(0);
    for (const file of minified) expect(kept.has(file.headers?.['debug-id'] ?? '')).toBe(true);
    expect(existsSync(path.join(dist, 'sourcemaps'))).toBe(false);
  });

  it('without credentials refuses to upload, says what to set, and keeps the maps', async () => {
    const result = await upload({ SENTRY_URL: api.url });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Set SENTRY_AUTH_TOKEN, SENTRY_ORG and SENTRY_PROJECT');
    expect(api.calls).toEqual([]);
    expect(existsSync(path.join(dist, 'sourcemaps'))).toBe(true);
  });

  it('a build without credentials succeeds and says where its maps are', () => {
    const output = readFileSync(path.join(ROOT, REPORTING_DIST, BUILD_OUTPUT), 'utf8');
    expect(output).toMatch(
      new RegExp(
        `Source maps: \\d+ kept in ${REPORTING_DIST.replace('.', '\\.')}/sourcemaps/ \\(never served\\)`,
      ),
    );
  });
});
