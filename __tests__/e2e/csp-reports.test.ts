// A CSP violation in Chromium, with a DSN: the page's policy names the same-origin tunnel (report-to,
// with Reporting-Endpoints; report-uri for browsers without the Reporting API), the browser reports
// an injected inline script there, and the tunnel forwards it, scrubbed, to the (fake) ingest's
// security endpoint, as Sentry's Relay takes it: one `{"csp-report": …}` per request.
import type { Browser } from 'playwright-core';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { type Ingest, type ReceivedEnvelope, startIngest } from '../support/ingest';
import { REPORTING_DIST } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { type RunningServer, startServer } from '../support/server';

const build = reportingBuild();
let ingest: Ingest;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  ingest = await startIngest(build.ingestPort);
  [server, browser] = await Promise.all([startServer({ distDir: REPORTING_DIST }), launchBrowser()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
  await ingest?.stop();
});

/** What reached the ingest's security endpoint: each request's CSP report. */
function securityReports(): { request: ReceivedEnvelope; report: Record<string, unknown> }[] {
  return ingest.envelopes
    .filter((request) => new URL(request.path, 'http://ingest').pathname === '/api/1/security/')
    .map((request) => ({
      request,
      report: JSON.parse(request.raw)['csp-report'] as Record<string, unknown>,
    }));
}

/** Waits for the first security report for which `test` holds. */
async function reportWhere(test: (report: Record<string, unknown>) => boolean) {
  const [found] = await ingest.waitFor(() => {
    const matching = securityReports().filter(({ report }) => test(report));
    return matching.length > 0 ? matching : undefined;
  });
  return found!;
}

/** Appends an inline script to the page, which the policy must refuse; whether it ran. */
const injectInlineScript = () => {
  const script = document.createElement('script');
  script.textContent = 'window.__injected = true;';
  document.head.append(script);
  return (window as unknown as { __injected?: boolean }).__injected === true;
};

describe('CSP violation reports, with a DSN', () => {
  it("name the tunnel in a page's policy: report-to with Reporting-Endpoints, and report-uri", async () => {
    const watched = await openWatchedPage(browser);
    try {
      const response = await watched.page.goto(`${server.url}/missing`);
      const headers = response!.headers();
      expect(headers['content-security-policy']).toContain(`report-uri ${build.tunnelPath}; report-to csp`);
      expect(headers['reporting-endpoints']).toBe(`csp="${build.tunnelPath}"`);
    } finally {
      await watched.close();
    }
  });

  // Chromium (156, headless) never delivered a Reporting API report here, with --short-reporting-delay,
  // an absolute endpoint or a Report-To header alike; and where report-to is present it ignores
  // report-uri. So the page's policy reaches this browser without report-to, as a browser without the
  // Reporting API reads it, and the report the browser makes itself goes through report-uri.
  it("carry an injected inline script's violation from Chromium to the ingest's security endpoint", async () => {
    const watched = await openWatchedPage(browser);
    try {
      await watched.page.route(`${server.url}/missing*`, async (route) => {
        const response = await route.fetch();
        const headers = { ...response.headers() };
        headers['content-security-policy'] = headers['content-security-policy']!.replace(
          '; report-to csp',
          '',
        );
        await route.fulfill({ response, headers });
      });
      await watched.page.goto(`${server.url}/missing?token=s3cr3t-value`);
      expect(await watched.page.evaluate(injectInlineScript)).toBe(false);
      const { request, report } = await reportWhere((r) => r['blocked-uri'] === 'inline');
      expect(request.path).toBe('/api/1/security/?sentry_key=publickey');
      expect(request.headers['content-type']).toBe('application/csp-report');
      expect(request.headers['user-agent']).toMatch(/Chrom/);
      expect(String(report['effective-directive'])).toMatch(/^script-src/);
      // Scrubbed as every other report: the page's query value does not leave.
      expect(String(report['document-uri'])).toContain('/missing?token=[Filtered]');
      expect(JSON.stringify(report)).not.toContain('s3cr3t-value');
    } finally {
      await watched.close();
    }
  });

  it('forward a Reporting API batch, as report-to sends it, one report per request', async () => {
    const watched = await openWatchedPage(browser);
    try {
      await watched.page.goto(`${server.url}/missing`);
      const status = await watched.page.evaluate(
        (tunnel) =>
          fetch(tunnel, {
            method: 'POST',
            headers: { 'Content-Type': 'application/reports+json' },
            body: JSON.stringify(
              ['https://tracker.example/a.gif', 'https://tracker.example/b.gif'].map((blockedURL) => ({
                type: 'csp-violation',
                age: 1,
                url: `${location.origin}/missing`,
                user_agent: navigator.userAgent,
                body: {
                  documentURL: `${location.origin}/missing`,
                  effectiveDirective: 'img-src',
                  blockedURL,
                  disposition: 'enforce',
                  statusCode: 404,
                },
              })),
            ),
          }).then((res) => res.status),
        build.tunnelPath,
      );
      expect(status).toBe(204);
      await reportWhere((r) => r['blocked-uri'] === 'https://tracker.example/a.gif');
      const { report } = await reportWhere((r) => r['blocked-uri'] === 'https://tracker.example/b.gif');
      expect(report).toMatchObject({ 'effective-directive': 'img-src', 'status-code': 404 });
    } finally {
      await watched.close();
    }
  });
});
