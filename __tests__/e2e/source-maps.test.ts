// Readable stack traces: errors thrown by the app's own TypeScript, in a real browser and on the
// server, reach the local ingest with frames that resolve to the original .tsx file and line
// through the map their debug ID names, read with the `source-map` library the way Sentry's
// symbolicator does. And no map is ever served.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { SourceMapConsumer } from 'source-map';
import { CLIENT_ERROR, SERVER_ERROR } from './__fixtures__/throwing';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { rawRequest } from '../support/http';
import type { Ingest, SentryEventPayload } from '../support/ingest';
import { PRODUCTION_DSN_DIST, REPORTING_DIST, ROOT } from '../support/paths';
import { mapsByDebugId } from '../support/source-maps';
import { type ReportingStack, startReportingStack } from '../support/reporting-stack';
import type { RunningServer } from '../support/server';

const FIXTURE = path.join(__dirname, '__fixtures__/throwing.tsx');
let stack: ReportingStack;
let ingest: Ingest;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startReportingStack(), launchBrowser()]);
  ({ server } = stack);
  ingest = stack.ingest!;
});

afterAll(async () => {
  await Promise.all([browser?.close(), stack?.stop()]);
});

/** The line of the fixture that throws `message`, read from the source itself. */
function throwingLine(message: 'CLIENT_ERROR' | 'SERVER_ERROR'): number {
  const lines = readFileSync(FIXTURE, 'utf8').split('\n');
  return lines.findIndex((line) => line.includes(`throw new Error(${message})`)) + 1;
}

/**
 * Resolves the event's frames the way the symbolicator does: each frame's file → the debug ID the
 * event's debug_meta gives it → the map with that ID → the original position.
 */
async function resolvedFrames(event: SentryEventPayload) {
  const maps = mapsByDebugId(path.join(ROOT, REPORTING_DIST, 'sourcemaps'));
  const images = event.debug_meta?.images ?? [];
  const frames = event.exception?.values?.[0]?.stacktrace?.frames ?? [];
  const resolved: { source: string | null; line: number | null }[] = [];
  for (const frame of frames) {
    const file = frame.abs_path ?? frame.filename;
    const image = images.find((candidate) => candidate.code_file === file);
    const mapFile = image?.debug_id ? maps.get(image.debug_id) : undefined;
    if (!mapFile || frame.lineno === undefined || frame.colno === undefined) continue;
    const consumer = await new SourceMapConsumer(JSON.parse(readFileSync(mapFile, 'utf8')));
    const original = consumer.originalPositionFor({ line: frame.lineno, column: frame.colno - 1 });
    consumer.destroy();
    resolved.push({ source: original.source, line: original.line });
  }
  return resolved;
}

function expectResolvesToFixture(resolved: { source: string | null; line: number | null }[], line: number) {
  expect(resolved.length).toBeGreaterThan(0);
  expect(resolved).toContainEqual({
    source: expect.stringMatching(/__tests__\/e2e\/__fixtures__\/throwing\.tsx$/),
    line,
  });
}

describe('readable stack traces', () => {
  it('an error thrown by TypeScript in the browser resolves to its .tsx file and line', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/__fixtures__/typescript-error`);
    await watched.page.waitForFunction(
      () => (window as unknown as { __sdkLoaded?: boolean }).__sdkLoaded === true,
    );
    await watched.page.getByRole('button', { name: 'Throw from TypeScript' }).click();
    const event = await ingest.waitFor(() => ingest.eventsWithMessage(CLIENT_ERROR)[0]);
    expectResolvesToFixture(await resolvedFrames(event), throwingLine('CLIENT_ERROR'));
    await watched.close();
  });

  it('an error thrown by TypeScript in getServerSideProps resolves to its .tsx file and line', async () => {
    expect((await rawRequest(server.url, '/__fixtures__/typescript-server-error')).status).toBe(500);
    const event = await ingest.waitFor(() => ingest.eventsWithMessage(SERVER_ERROR)[0]);
    expectResolvesToFixture(await resolvedFrames(event), throwingLine('SERVER_ERROR'));
  });
});

describe('no map is served', () => {
  it.each([REPORTING_DIST, PRODUCTION_DSN_DIST])(
    '%s keeps no map where the server serves files',
    (distDir) => {
      const staticDir = path.join(ROOT, distDir, 'static');
      const files = readdirSync(staticDir, { recursive: true, encoding: 'utf8' });
      expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
      for (const file of files.filter((name) => /\.(js|css)$/.test(name))) {
        expect(readFileSync(path.join(staticDir, file), 'utf8')).not.toContain('sourceMappingURL');
      }
      expect(mapsByDebugId(path.join(ROOT, distDir, 'sourcemaps')).size).toBeGreaterThan(0);
    },
  );

  it('answers 404 for a map under /_next/, even one the build made', async () => {
    const kept = readdirSync(path.join(ROOT, REPORTING_DIST, 'sourcemaps/client/chunks'), {
      encoding: 'utf8',
    });
    const map = kept.find((file) => file.endsWith('.js.map'))!;
    expect((await rawRequest(server.url, `/_next/static/chunks/${map}`)).status).toBe(404);
  });
});
