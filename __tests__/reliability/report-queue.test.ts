// No report lost while the ingest is away (lib/reporting/queue/): it answers 500, then hangs, then
// refuses connections, while server errors happen and browsers post theirs through the tunnel;
// once it is back, each arrives, once. A restart during the outage with the folder kept loses
// none; a full queue says "try later" to browsers; a flood cannot push the server's own reports
// out, nor take more disk than its share.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rawRequest } from '../support/http';
import { type Ingest, startIngest } from '../support/ingest';
import { REPORTING_DIST } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { recordResult } from '../support/results';
import { type RunningServer, startServer } from '../support/server';
import { until } from '../support/until';

const build = reportingBuild();
/** What the issue allows between the ingest's recovery and the last report's arrival. */
const RECOVERY_BOUND_MS = 90_000;

let ingest: Ingest | null = null;
const servers: RunningServer[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await ingest?.stop();
  ingest = null;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const newFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'report-queue-e2e-'));
  folders.push(folder);
  return folder;
};

async function serve(folder: string, env: Record<string, string> = {}) {
  const server = await startServer({ distDir: REPORTING_DIST, env: { REPORT_QUEUE_DIR: folder, ...env } });
  servers.push(server);
  return server;
}

/** A server error: the page whose getServerSideProps throws, its message ending with `id`. */
async function serverError(server: RunningServer, id: string) {
  const answer = await rawRequest(server.url, `/__fixtures__/server-error?id=${id}`);
  expect(answer.status).toBe(500);
}

/** A browser's error report, as the SDK posts it to the tunnel; its event id. */
async function browserError(server: RunningServer, id: string) {
  const eventId = randomBytes(16).toString('hex');
  const body = `{"event_id":"${eventId}","dsn":"${build.dsn}"}\n{"type":"event"}\n{"message":"Browser error ${id}","event_id":"${eventId}"}\n`;
  const answer = await rawRequest(server.url, build.tunnelPath, { method: 'POST', body });
  return { eventId, status: answer.status, retryAfter: answer.headers['retry-after'] };
}

const metric = async (server: RunningServer, name: string, labels = ''): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${server.managementPort}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

/** How many times each wanted message arrived. */
const arrivals = (messages: string[]) => messages.map((message) => ingest!.eventsWithMessage(message).length);

const serverMessage = (id: string) => `Fixture server render error ${id}`;
const browserMessage = (id: string) => `Browser error ${id}`;

const folderBytes = (folder: string) =>
  readdirSync(folder).reduce((sum, name) => sum + statSync(path.join(folder, name)).size, 0);

describe('while the ingest is away', () => {
  it('keeps every server and browser error through 500s, a hang and refused connections, and delivers each once when it is back', async () => {
    ingest = await startIngest(build.ingestPort);
    const folder = newFolder();
    const server = await serve(folder);
    const serverIds: string[] = [];
    const browserIds: string[] = [];
    const healthAnswers: number[] = [];
    const tunnelAnswers: number[] = [];
    const phase = async (name: string, servers: number, browsers: number) => {
      for (let i = 0; i < servers; i += 1) {
        const id = `${name}-${i}`;
        serverIds.push(id);
        await serverError(server, id);
      }
      for (let i = 0; i < browsers; i += 1) {
        const id = `${name}-${i}`;
        browserIds.push(id);
        tunnelAnswers.push((await browserError(server, id)).status);
      }
      healthAnswers.push((await rawRequest(server.url, '/api/health')).status);
    };

    ingest.setMode('failing');
    await phase('failing', 7, 2);
    ingest.setMode('hanging');
    await phase('hanging', 7, 2);
    await ingest.stop();
    ingest = null;
    await phase('refused', 6, 2);
    expect(serverIds).toHaveLength(20);

    // All of them wait, on disk; the ingest's outage is not the app's failure.
    await until(
      async () => (await metric(server, 'app_report_queue_envelopes', 'source="server"')) === 20,
      15_000,
    );
    expect(await metric(server, 'app_report_queue_envelopes', 'source="browser"')).toBe(6);
    expect(await metric(server, 'app_report_queue_oldest_age_seconds')).toBeGreaterThan(0);
    // The SDK heard "waiting" (202) for each, not "sent" nor "dropped".
    expect(await metric(server, 'app_error_reports_total', 'outcome="queued",reason=""')).toBe(20);
    expect(readdirSync(folder).filter((name) => name.endsWith('.envelope'))).toHaveLength(26);
    expect(healthAnswers).toEqual([200, 200, 200]);
    expect((await rawRequest(server.url, '/api/health/ready')).status).toBe(200);
    // The tunnel took each for later (202), not "try later".
    expect(tunnelAnswers).toEqual(Array(6).fill(202));

    ingest = await startIngest(build.ingestPort);
    const back = performance.now();
    const wanted = [...serverIds.map(serverMessage), ...browserIds.map(browserMessage)];
    await until(() => arrivals(wanted).every((count) => count >= 1), RECOVERY_BOUND_MS, 100);
    const recoveredMs = Math.round(performance.now() - back);
    // A moment more, so that a duplicate would have arrived too.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    recordResult({
      scenario: 'report queue: ingest 500, hang, refused, then back',
      requests: wanted.length,
      failures: arrivals(wanted).filter((count) => count !== 1).length,
      worstLatencyMs: recoveredMs,
      note: `20 server + 6 browser errors; all arrived ${recoveredMs} ms after the ingest was back`,
    });
    process.stdout.write(`[reliability] report queue: 26 of 26 arrived ${recoveredMs} ms after recovery\n`);
    expect(arrivals(wanted)).toEqual(Array(wanted.length).fill(1));
    await until(() => readdirSync(folder).length === 0, 10_000, 50);
    expect(await metric(server, 'app_report_queue_sent_total', 'source="server"')).toBe(20);
    expect(await metric(server, 'app_report_queue_sent_total', 'source="browser"')).toBe(6);
    expect(await metric(server, 'app_report_queue_retried_total', 'reason="status_5xx"')).toBeGreaterThan(0);
  }, 180_000);

  it('loses none when the process is killed during the outage and a new one starts on the same folder', async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const folder = newFolder();
    const first = await serve(folder);
    const ids = ['restart-0', 'restart-1', 'restart-2', 'restart-3', 'restart-4'];
    for (const id of ids) await serverError(first, id);
    const browser = await browserError(first, 'restart-b');
    expect(browser.status).toBe(202);
    await until(
      () => readdirSync(folder).filter((name) => name.endsWith('.envelope')).length === 6,
      15_000,
      20,
    );
    // Not a graceful stop: what waits must already be on disk.
    first.child.kill('SIGKILL');
    await first.exited;
    servers.splice(servers.indexOf(first), 1);

    ingest.setMode('ok');
    const second = await serve(folder);
    const wanted = [...ids.map(serverMessage), browserMessage('restart-b')];
    await until(() => arrivals(wanted).every((count) => count >= 1), 30_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(arrivals(wanted)).toEqual(Array(wanted.length).fill(1));
    expect(second.output()).toContain('"event":"reporting.queue_resumed"');
  }, 90_000);

  it('when full, tells browsers to try later and keeps the server’s own errors within their share', async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const folder = newFolder();
    // Five for each source.
    const server = await serve(folder, { REPORT_QUEUE_MAX_ENVELOPES: '10' });
    const browserAnswers = [];
    for (let i = 0; i < 8; i += 1) browserAnswers.push(await browserError(server, `full-${i}`));
    expect(browserAnswers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202, 503, 503, 503]);
    expect(browserAnswers[7]!.retryAfter).toBe('60');
    const ids = Array.from({ length: 7 }, (_, i) => `full-${i}`);
    for (const id of ids) await serverError(server, id);
    await until(
      async () =>
        (await metric(server, 'app_report_queue_dropped_total', 'source="server",reason="full"')) === 2,
      15_000,
    );
    expect(await metric(server, 'app_report_queue_envelopes', 'source="server"')).toBe(5);
    expect(await metric(server, 'app_report_queue_dropped_total', 'source="browser",reason="full"')).toBe(3);

    ingest.setMode('ok');
    const kept = [...ids.slice(0, 5).map(serverMessage), ...ids.slice(0, 5).map(browserMessage)];
    await until(() => arrivals(kept).every((count) => count >= 1), 60_000, 100);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(arrivals(kept)).toEqual(Array(10).fill(1));
  }, 120_000);

  it('under a flood of valid envelopes, holds disk to the browsers’ share and still keeps the server’s errors', async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const folder = newFolder();
    const maxBytes = 4 * 1024 * 1024;
    const server = await serve(folder, { REPORT_QUEUE_MAX_BYTES: String(maxBytes) });
    const rss = () => {
      const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) * 1024;
    };
    // Warm, so what follows measures the flood rather than the first requests' code loading.
    await browserError(server, 'warm');
    const rssBefore = rss();
    const padding = 'x'.repeat(60 * 1024);
    const flood = async (worker: number) => {
      const counts = { 202: 0, 503: 0, other: 0 };
      for (let i = 0; i < 50; i += 1) {
        const eventId = randomBytes(16).toString('hex');
        const body = `{"event_id":"${eventId}","dsn":"${build.dsn}"}\n{"type":"event"}\n{"message":"flood ${worker}-${i} ${padding}"}\n`;
        const { status } = await rawRequest(server.url, build.tunnelPath, { method: 'POST', body });
        if (status === 202 || status === 503) counts[status] += 1;
        else counts.other += 1;
      }
      return counts;
    };
    const results = await Promise.all(Array.from({ length: 8 }, (_, worker) => flood(worker)));
    const refused = results.reduce((sum, counts) => sum + counts[503], 0);
    const accepted = results.reduce((sum, counts) => sum + counts[202], 0);
    expect(results.every((counts) => counts.other === 0)).toBe(true);
    expect(refused).toBeGreaterThan(0);
    const diskAfterFlood = folderBytes(folder);
    const rssAfter = rss();

    const ids = ['flood-0', 'flood-1', 'flood-2'];
    for (const id of ids) await serverError(server, id);
    await until(
      async () => (await metric(server, 'app_report_queue_envelopes', 'source="server"')) === 3,
      15_000,
    );
    recordResult({
      scenario: 'report queue: flood of 400 × 60 KiB envelopes during an outage',
      requests: 400,
      failures: diskAfterFlood > maxBytes / 2 + 64 * 1024 ? 1 : 0,
      worstLatencyMs: 0,
      note: `${accepted} kept, ${refused} told to try later; disk ${diskAfterFlood} B (browsers' share ${maxBytes / 2} B); RSS +${Math.round((rssAfter - rssBefore) / 1024 / 1024)} MiB`,
    });
    process.stdout.write(
      `[reliability] flood: ${accepted} kept, ${refused} × 503; disk ${diskAfterFlood} B of ${maxBytes / 2} B; RSS ${Math.round(rssBefore / 1048576)} → ${Math.round(rssAfter / 1048576)} MiB\n`,
    );
    // The browsers' share of the bytes, plus the files' facts lines.
    expect(diskAfterFlood).toBeLessThanOrEqual(maxBytes / 2 + 64 * 1024);
    // With a folder, waiting envelopes are not held in memory: the flood's bodies came and went.
    expect(rssAfter - rssBefore).toBeLessThan(64 * 1024 * 1024);

    ingest.setMode('ok');
    await until(() => arrivals(ids.map(serverMessage)).every((count) => count === 1), 60_000, 100);
  }, 120_000);
});
