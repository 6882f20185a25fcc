// Release health and performance in a real browser, against the stand-in ingest. With
// SENTRY_TRACES_SAMPLE_RATE=1 a page view is a session of the release, the server's `http.server`
// transaction for the document names its trace in the document's meta tags, and the browser's page
// load continues that trace with Web Vitals. At 0 (the reporting build's default) the page view
// is still a session, but no tracing code is asked for and no transaction is sent.
import type { Event } from '@sentry/core';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { npmBuild } from '../support/builds';
import { type Ingest, startIngest } from '../support/ingest';
import { REPORTING_DIST } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { type RunningServer, startServer } from '../support/server';

/** The reporting build again with every page view traced: same DSN, so the same ingest. */
const TRACING_BUILD = '.next-e2e-tracing';
const build = reportingBuild();
/** A page Next renders for each request (getServerSideProps), with text to paint; a secret in its query. */
const SECRET = 's3cr3t-query-value';
const PAGE = `/__fixtures__/slow?ms=0&token=${SECRET}`;
const ROUTE = '/__fixtures__/slow';

let ingest: Ingest;
let browser: Browser;
const servers: RunningServer[] = [];

beforeAll(async () => {
  npmBuild(
    TRACING_BUILD,
    { APP_SHELL_FIXTURES: '1', SENTRY_DSN: build.dsn, SENTRY_TRACES_SAMPLE_RATE: '1' },
    'ignore',
  );
  [ingest, browser] = await Promise.all([startIngest(build.ingestPort), launchBrowser()]);
}, 240_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await browser?.close();
  await ingest?.stop();
});

interface Item {
  type: string;
  /** An event or transaction; a session's fields are read through toMatchObject. */
  payload: Event;
}

/** Every item the ingest received since `from` envelopes, with its type. */
const itemsSince = (from: number): Item[] =>
  ingest.envelopes
    .slice(from)
    .flatMap((envelope) =>
      envelope.items.map(([header, payload]) => ({ type: String(header.type), payload: payload as Event })),
    );

/** Opens PAGE in a fresh context, noting the reporting files it asks for. */
async function openPage(server: RunningServer): Promise<{ page: Page; files: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const files: string[] = [];
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (pathname.startsWith('/_next/static/chunks/reporting-')) files.push(pathname);
  });
  await page.goto(`${server.url}${PAGE}`);
  return { page, files };
}

describe('with SENTRY_TRACES_SAMPLE_RATE=1', () => {
  it('sends a session, the server transaction and a page load with Web Vitals, in one trace', async () => {
    const server = await startServer({ distDir: TRACING_BUILD });
    servers.push(server);
    const from = ingest.envelopes.length;
    const { page, files } = await openPage(server);
    const sentryTrace = await page.locator('meta[name="sentry-trace"]').getAttribute('content');
    const baggage = await page.locator('meta[name="baggage"]').getAttribute('content');
    const [traceId, serverSpanId, sampled] = (sentryTrace ?? '').split('-');
    expect(sampled).toBe('1');
    expect(baggage).toContain(`sentry-trace_id=${traceId}`);

    const pageload = await ingest.waitFor(
      () =>
        itemsSince(from).find(
          (item) => item.type === 'transaction' && item.payload.contexts?.trace?.op === 'pageload',
        )?.payload,
      20_000,
    );
    const serverTransaction = itemsSince(from).find(
      (item) => item.type === 'transaction' && item.payload.contexts?.trace?.op === 'http.server',
    )?.payload;
    const session = itemsSince(from).find((item) => item.type === 'session')?.payload;

    // The server's transaction is the one the document's meta tag names.
    expect(serverTransaction).toMatchObject({
      transaction: `GET ${ROUTE}`,
      contexts: { trace: { trace_id: traceId, span_id: serverSpanId, status: 'ok' } },
    });
    // The page load continues it, named by the route, with LCP and FCP.
    expect(pageload).toMatchObject({
      transaction: ROUTE,
      release: build.release,
      contexts: { trace: { trace_id: traceId, parent_span_id: serverSpanId } },
    });
    expect(pageload.measurements?.lcp?.value).toBeGreaterThan(0);
    expect(pageload.measurements?.fcp?.value).toBeGreaterThan(0);
    // The URLs its spans name keep their query, scrubbed like an event's.
    expect(JSON.stringify(pageload)).toContain('token=[Filtered]');
    for (const item of [pageload, serverTransaction, session])
      expect(JSON.stringify(item)).not.toContain(SECRET);
    // A session of the release.
    expect(session).toMatchObject({ init: true, attrs: { release: build.release } });
    // The sampled visitor loaded the tracing file, and only that.
    expect(files).toEqual([expect.stringMatching(/^\/_next\/static\/chunks\/reporting-tracing-[\w-]+\.js$/)]);
    await page.context().close();
  });
});

describe('with SENTRY_TRACES_SAMPLE_RATE at 0', () => {
  it('sends the session, asks for no tracing code and sends no transaction', async () => {
    const server = await startServer({ distDir: REPORTING_DIST });
    servers.push(server);
    const from = ingest.envelopes.length;
    const { page, files } = await openPage(server);
    const session = await ingest.waitFor(
      () => itemsSince(from).find((item) => item.type === 'session')?.payload,
      20_000,
    );
    expect(session).toMatchObject({ init: true, attrs: { release: build.release } });
    // What a page load would have been sent by now (it ends a second after the page is idle).
    await page.waitForTimeout(3000);
    expect(itemsSince(from).filter((item) => item.type !== 'session')).toEqual([]);
    expect(await page.locator('meta[name="sentry-trace"]').count()).toBe(0);
    expect(files).toEqual([
      expect.stringMatching(/^\/_next\/static\/chunks\/reporting-(?!tracing)[\w-]+\.js$/),
    ]);
    await page.context().close();
  });
});
