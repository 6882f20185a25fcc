// A deploy while a page is open: a page of the first build asks for its reporting file only once
// it is idle, and by then the second build has taken the port. Its errors must still arrive.
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { type Ingest, startIngest } from '../support/ingest';
import { REPORTING_DIST, REPORTING_NEXT_DIST } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { freePort, type RunningServer, startServer } from '../support/server';

/** The second build: the same DSN (so the same ingest), another build id. */
const NEXT_BUILD = REPORTING_NEXT_DIST;
const build = reportingBuild();
let ingest: Ingest;
let browser: Browser;
let port: number;
const servers: RunningServer[] = [];

beforeAll(async () => {
  buildUnlessKept(NEXT_BUILD, plannedEnv(NEXT_BUILD));
  [ingest, browser, port] = await Promise.all([startIngest(build.ingestPort), launchBrowser(), freePort()]);
}, 240_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await browser?.close();
  await ingest?.stop();
});

describe('a page open across a deploy', () => {
  it('reports its errors through the new build’s reporting file once its own is gone', async () => {
    const first = await startServer({ distDir: REPORTING_DIST, port });
    servers.push(first);
    const page = await (await browser.newContext()).newPage();
    // The page asks for its reporting file when idle; it is held until the deploy is done.
    let askedFor!: () => void;
    const asked = new Promise<void>((resolve) => (askedFor = resolve));
    let deployed!: () => void;
    const deploy = new Promise<void>((resolve) => (deployed = resolve));
    const answers: string[] = [];
    page.on('response', (response) => {
      if (response.url().includes('/reporting-'))
        answers.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
    await page.route('**/_next/static/chunks/reporting-*.js', async (route) => {
      askedFor();
      await deploy;
      await route.continue();
    });
    await page.goto(`${first.url}/__fixtures__/event-handler-error`);
    await asked;

    await first.stop();
    const second = await startServer({ distDir: NEXT_BUILD, port });
    servers.push(second);
    deployed();
    await page.getByRole('button', { name: 'Throw from a click' }).click();

    const event = await ingest.waitFor(
      () => ingest.eventsWithMessage('Fixture event handler error')[0],
      15_000,
    );
    expect(event).toBeDefined();
    // Its own file was asked for and moved: the second build's file answered.
    expect(answers).toEqual([
      expect.stringMatching(/^307 \/_next\/static\/chunks\/reporting-[\w-]+\.js$/),
      expect.stringMatching(/^200 \/_next\/static\/chunks\/reporting-[\w-]+\.js$/),
    ]);
    expect(answers[0]!.split(' ')[1]).not.toBe(answers[1]!.split(' ')[1]);
  });
});
