// Release health and performance in a real browser, against the stand-in ingest. With
// SENTRY_TRACES_SAMPLE_RATE=1 a page view is a session of the release, the server's `http.server`
// transaction for the document names its trace in the document's meta tags, and the browser's page
// load continues that trace with Web Vitals. At 0 (the reporting build's default) the page view
// is still a session, but no tracing code is asked for and no transaction is sent.
import type { Event } from '@sentry/core';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { type Ingest, startIngest } from '../support/ingest';
import { REPORTING_DIST, TRACING_DIST } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { type RunningServer, startServer } from '../support/server';

/** The reporting build again with every page view traced: same DSN, so the same ingest. */
const TRACING_BUILD = TRACING_DIST;
const build = reportingBuild();
/** A page Next renders for each request (getServerSideProps), with text to paint; a secret in its query. */
const SECRET = 's3cr3t-query-value';
const PAGE = `/__fixtures__/slow?ms=0&token=${SECRET}`;
const ROUTE = '/__fixtures__/slow';

let ingest: Ingest;
let browser: Browser;
const servers: RunningServer[] = [];

beforeAll(async () => {
  // Built with the reporting build's DSN, every request traced (support/builds.ts).
  const planned = plannedEnv(TRACING_BUILD);
  if (planned.SENTRY_DSN !== build.dsn || planned.SENTRY_TRACES_SAMPLE_RATE !== '1')
    throw new Error(`support/builds.ts plans TRACING_BUILD otherwise: ${JSON.stringify(planned)}`);
  buildUnlessKept(TRACING_BUILD, planned);
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
  it('traces the very first request after the server says it is ready', async () => {
    // Next prepares itself (its instrumentation hook: the Sentry client) on its first request, and
    // the readiness probe never reaches Next: the server asks Next once before it listens.
    const server = await startServer({ distDir: TRACING_BUILD });
    servers.push(server);
    const html = await (await fetch(`${server.url}${PAGE}`)).text();
    expect(/<meta name="sentry-trace" content="[0-9a-f]{32}-[0-9a-f]{16}-(\d)"/.exec(html)?.[1]).toBe('1');
  });

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
      // Named as Relay requires (relay-event-schema/src/protocol/clientsdk.rs: name and version).
      sdk: { name: 'sentry.javascript.core', version: expect.stringMatching(/^\d+\.\d+\.\d+/) },
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

describe('with SENTRY_TRACES_SAMPLE_RATE=1, after the page load', () => {
  it("continues a sampled page's trace on the server when it navigates on the client", async () => {
    const server = await startServer({ distDir: TRACING_BUILD });
    servers.push(server);
    const from = ingest.envelopes.length;
    const page = await (await browser.newContext()).newPage();
    const dataRequests: { url: string; sentryTrace: string | undefined }[] = [];
    page.on('request', (request) => {
      // With a proxy in the build (a product's proxy.ts), Next's router first asks each link's data
      // as a prefetch of the proxy's answer alone: not the navigation, which asks again.
      if (request.headers()['x-middleware-prefetch']) return;
      if (new URL(request.url()).pathname.startsWith('/_next/data/'))
        dataRequests.push({ url: request.url(), sentryTrace: request.headers()['sentry-trace'] });
    });
    await page.goto(`${server.url}/__fixtures__/fleet`);
    // The tracing file has loaded once the page load is under way (it is what sends it).
    await ingest.waitFor(
      () =>
        itemsSince(from).find(
          (item) => item.type === 'transaction' && item.payload.contexts?.trace?.op === 'pageload',
        ),
      20_000,
    );
    await page.getByRole('link', { name: 'Open the server-rendered page' }).click();
    await page.getByRole('heading', { name: 'Server-rendered fixture' }).waitFor();
    const [asked] = dataRequests;
    expect(asked?.sentryTrace).toMatch(/^[0-9a-f]{32}-[0-9a-f]{16}-1$/);
    const [traceId, parentId] = asked!.sentryTrace!.split('-');
    // The server's transaction for the data request is in the browser's trace: the page's (Next asks
    // for the data before it changes the URL, which starts the navigation's). A product's proxy makes
    // the router prefetch the proxy's answer first, outside any span, which the server traces on its
    // own: so the one sought is the route's transaction in that trace, and it is the browser span's child.
    const serverSide = await ingest.waitFor(
      () =>
        itemsSince(from).find(
          (item) =>
            item.type === 'transaction' &&
            item.payload.transaction === 'GET /__fixtures__/fleet/server' &&
            item.payload.contexts?.trace?.trace_id === traceId,
        )?.payload,
      20_000,
    );
    expect(serverSide.contexts?.trace).toMatchObject({ trace_id: traceId, parent_span_id: parentId });
    const browserSide = await ingest.waitFor(
      () =>
        itemsSince(from).find(
          (item) =>
            item.type === 'transaction' &&
            ['pageload', 'navigation'].includes(String(item.payload.contexts?.trace?.op)) &&
            item.payload.contexts?.trace?.trace_id === traceId,
        )?.payload,
      20_000,
    );
    expect(browserSide.contexts?.trace?.trace_id).toBe(traceId);
    await page.context().close();
  });

  it('sends the INP of a slow click scrubbed, though its element carries secrets', async () => {
    const server = await startServer({ distDir: TRACING_BUILD });
    servers.push(server);
    const from = ingest.envelopes.length;
    const page = await (await browser.newContext()).newPage();
    const posted: string[] = [];
    const answered: number[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === build.tunnelPath) posted.push(request.postData() ?? '');
    });
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === build.tunnelPath) answered.push(response.status());
    });
    const tracingLoaded = page.waitForResponse((response) =>
      new URL(response.url()).pathname.startsWith('/_next/static/chunks/reporting-tracing-'),
    );
    await page.goto(`${server.url}/__fixtures__/slow-interaction`);
    // Clicked while the page load is under way: the INP span is a child of it.
    await tracingLoaded;
    await page.waitForTimeout(300);
    await page.getByRole('button', { name: 'Do the slow thing' }).click();
    await page.getByText('Done.').waitFor();
    // The browser reports the interaction's timing after the next paint: its own observer, with
    // buffered entries, sees it, so the SDK's has been handed it too.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          new PerformanceObserver((list, observer) => {
            if (list.getEntries().some((entry) => entry.duration >= 150)) {
              observer.disconnect();
              resolve();
            }
          }).observe({ type: 'event', buffered: true, durationThreshold: 16 } as PerformanceObserverInit);
        }),
    );
    // INP is sent when the page is hidden, as when the visitor leaves it. web-vitals reads the
    // entries in an idle callback, which headless Chromium may not run for seconds; hidden before
    // that, the page reports INP before it has read them. So the page is hidden twice (a visitor
    // switching tabs and back): the second time it reports what the first one read.
    const hide = () =>
      page.evaluate(() => {
        Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      });
    await hide();
    await page.waitForTimeout(300);
    await hide();
    const spanEnvelope = () =>
      ingest.envelopes
        .slice(from)
        .find((received) => received.items.some(([header]) => header.type === 'span'));
    const envelope = await ingest.waitFor(spanEnvelope, 20_000).catch((error: Error) => {
      // Where it was lost, for whoever reads a failure: never posted, or posted and not passed on.
      const postedSpan = posted.some((body) => body.includes('"type":"span"'));
      throw new Error(
        `${error.message}; the page posted ${posted.length} envelopes to the tunnel (a span among them: ${postedSpan}), answered ${answered.join(', ') || 'nothing'}`,
      );
    });
    const inp = JSON.stringify(envelope);
    // It is the INP of that button: its op, and the element it names, scrubbed.
    expect(inp).toContain('ui.interaction.click');
    expect(inp).toContain('button#');
    for (const secret of ['ghp_0123456789abcdefghijABCDEFGHIJ012345', 'jane.secret@example.com']) {
      expect(inp).not.toContain(secret);
      // Scrubbed before it left the browser, not only by the tunnel.
      expect(posted.join('\n')).not.toContain(secret);
    }
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
