// Waiting reports outlive their pod (lib/reporting/queue/hand-off.ts). Two instances, peers of each
// other (FLEET_PEERS), each with its own REPORT_QUEUE_DIR as each pod has its own emptyDir, and one
// shared REPORT_HANDOFF_SECRET. While the ingest answers 500, 20 server errors on the first; it then
// gets SIGTERM (a rolling update, a scale-down), and once it has exited its folder is deleted, as
// the pod's emptyDir goes. When the ingest recovers, each of the 20 must arrive, once. A stranger's
// hand-off is refused; a peer that dies halfway through loses nothing it did not acknowledge.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IDENTITY_PATH, REPORTS_HANDOFF_PATH } from '@lib/fleet/paths';
import { rawRequest } from '../support/http';
import { type Ingest, startIngest } from '../support/ingest';
import { REPORTING_DIST, ROOT } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import { recordResult } from '../support/results';
import { freePort, type RunningServer, startServer } from '../support/server';
import { until } from '../support/until';

const build = reportingBuild();
const SECRET = randomBytes(32).toString('hex');
const REPORTS = 20;

let ingest: Ingest | null = null;
const servers: RunningServer[] = [];
const folders: string[] = [];
const stubs: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
  await ingest?.stop();
  ingest = null;
  await Promise.all(stubs.splice(0).map((stub) => new Promise((resolve) => stub.close(resolve))));
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const newFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'report-handoff-'));
  folders.push(folder);
  return folder;
};

async function serve(port: number, folder: string, peers: string[], env: Record<string, string> = {}) {
  const server = await startServer({
    distDir: REPORTING_DIST,
    port,
    env: {
      REPORT_QUEUE_DIR: folder,
      FLEET_PEERS: peers.join(','),
      REPORT_HANDOFF_SECRET: SECRET,
      SHUTDOWN_DRAIN_MS: '0',
      ...env,
    },
  });
  servers.push(server);
  return server;
}

const metric = async (server: RunningServer, name: string, labels = ''): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${server.managementPort}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line ? Number(line.split(' ').pop()) : Number.NaN;
};

const message = (id: string) => `Fixture server render error ${id}`;
const arrivals = (ids: string[]) => ids.map((id) => ingest!.eventsWithMessage(message(id)).length);

/** `count` server errors on `server`, each with its own id; waits until each waits in its queue. */
async function errorsWhileIngestFails(server: RunningServer, prefix: string, count: number) {
  // Two digits each, so that no id is the start of another (the ingest finds messages by substring).
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
  for (const id of ids)
    expect((await rawRequest(server.url, `/__fixtures__/server-error?id=${id}`)).status).toBe(500);
  await until(
    async () => (await metric(server, 'app_report_queue_envelopes', 'source="server"')) === count,
    15_000,
  );
  return ids;
}

/** The last `reporting.queue_handed_over` line the server wrote. */
function handedOver(server: RunningServer): { given: number; left: number; peers: number } {
  const line = server
    .output()
    .split('\n')
    .filter((row) => row.includes('"event":"reporting.queue_handed_over"'))
    .at(-1);
  if (!line) throw new Error(`no hand-off line in:\n${server.output()}`);
  return JSON.parse(line) as { given: number; left: number; peers: number };
}

describe('reports waiting when their pod goes', () => {
  it(`all ${REPORTS} reach the ingest, each once, after their instance stopped and its folder was deleted`, async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const [portA, portB] = [await freePort(), await freePort()];
    const [folderA, folderB] = [newFolder(), newFolder()];
    const a = await serve(portA, folderA, [`http://127.0.0.1:${portB}`]);
    const b = await serve(portB, folderB, [`http://127.0.0.1:${portA}`]);
    // Each knows the other (B asked A who it is as it started, so A looked again).
    await until(async () => (await metric(a, 'app_fleet_peers')) === 1, 15_000);
    await until(async () => (await metric(b, 'app_fleet_peers')) === 1, 15_000);

    const ids = await errorsWhileIngestFails(a, 'handoff', REPORTS);
    expect(readdirSync(folderA).filter((name) => name.endsWith('.envelope'))).toHaveLength(REPORTS);

    const stopped = performance.now();
    expect(await a.stop()).toBe(0);
    const stopMs = Math.round(performance.now() - stopped);
    servers.splice(servers.indexOf(a), 1);
    // The pod is deleted: its emptyDir goes with it.
    rmSync(folderA, { recursive: true, force: true });
    expect(handedOver(a)).toMatchObject({ given: REPORTS, left: 0, peers: 1 });
    expect(await metric(b, 'app_report_queue_envelopes', 'source="server"')).toBe(REPORTS);
    expect(await metric(b, 'app_report_queue_handed_over_total', 'source="server",direction="in"')).toBe(
      REPORTS,
    );

    ingest.setMode('ok');
    const back = performance.now();
    await until(() => arrivals(ids).every((count) => count >= 1), 90_000, 100);
    const arrivedMs = Math.round(performance.now() - back);
    // A moment more, so that a duplicate would have arrived too.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const counts = arrivals(ids);
    recordResult({
      scenario: 'reports handed over as their pod goes',
      requests: REPORTS,
      failures: counts.filter((count) => count !== 1).length,
      worstLatencyMs: arrivedMs,
      note: `${counts.filter((count) => count === 1).length} of ${REPORTS} arrived once, ${arrivedMs} ms after the ingest was back; SIGTERM to exit ${stopMs} ms, folder deleted`,
    });
    process.stdout.write(
      `[reliability] hand-off: ${counts.filter((count) => count === 1).length} of ${REPORTS} arrived once; stop took ${stopMs} ms\n`,
    );
    expect({ counts, ids }).toEqual({ counts: Array(REPORTS).fill(1), ids });
  }, 180_000);

  it('refuses a stranger: no secret 401, another secret 403, and nothing is taken', async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const port = await freePort();
    const server = await serve(port, newFolder(), [`http://127.0.0.1:${await freePort()}`]);
    const envelope = `{"event_id":"${randomBytes(16).toString('hex')}","dsn":"${build.dsn}"}\n{"type":"event"}\n{"message":"stranger"}\n`;
    const headers = {
      'x-app-shell-report-source': 'server',
      'x-app-shell-report-queued-at': String(Date.now()),
    };
    const none = await rawRequest(server.url, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers,
      body: envelope,
    });
    const wrong = await rawRequest(server.url, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${randomBytes(32).toString('hex')}` },
      body: envelope,
    });
    expect([none.status, wrong.status]).toEqual([401, 403]);
    expect(await metric(server, 'app_report_queue_envelopes', 'source="server"')).toBe(0);
    // Without FLEET_PEERS there is no hand-off at all: the path is Next's, and unknown.
    const alone = await serve(await freePort(), newFolder(), [], { FLEET_PEERS: '' });
    const asked = await rawRequest(alone.url, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${SECRET}` },
      body: envelope,
    });
    expect(asked.status).toBe(404);
  }, 60_000);

  it("refuses a peer's body that is not an envelope with 400, and queues nothing", async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const server = await serve(await freePort(), newFolder(), [`http://127.0.0.1:${await freePort()}`]);
    const headers = {
      authorization: `Bearer ${SECRET}`,
      'content-type': 'application/x-sentry-envelope',
      'x-app-shell-report-source': 'server',
      'x-app-shell-report-queued-at': String(Date.now()),
    };
    for (const body of ['', 'not an envelope at all', '{"event_id":\n{"type":"event"}\n{}\n']) {
      const answer = await rawRequest(server.url, REPORTS_HANDOFF_PATH, { method: 'POST', headers, body });
      expect([JSON.stringify(body), answer.status]).toEqual([JSON.stringify(body), 400]);
    }
    expect(await metric(server, 'app_report_queue_envelopes', 'source="server"')).toBe(0);
  }, 60_000);

  it('says at start, once, that waiting reports will go with the pod when peers and a folder have no secret', async () => {
    const server = await serve(await freePort(), newFolder(), [`http://127.0.0.1:${await freePort()}`], {
      REPORT_HANDOFF_SECRET: undefined as unknown as string,
    });
    const warnings = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"event":"reporting.handoff_off"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('REPORT_HANDOFF_SECRET');
  }, 60_000);

  it('loses nothing a peer did not acknowledge when the peer dies halfway through', async () => {
    ingest = await startIngest(build.ingestPort);
    ingest.setMode('failing');
    const buildId = readFileSync(path.join(ROOT, REPORTING_DIST, 'BUILD_ID'), 'utf8').trim();
    // A peer that takes the first 7 envelopes and then dies: every later connection is cut.
    const TAKEN_BEFORE_DYING = 7;
    const taken: string[] = [];
    const peer = http.createServer((req, res) => {
      if (req.url === IDENTITY_PATH)
        return void res.end(JSON.stringify({ build: buildId, instance: 'dying-peer' }));
      if (req.url !== REPORTS_HANDOFF_PATH || taken.length >= TAKEN_BEFORE_DYING)
        return void req.socket.destroy();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        taken.push(/Fixture server render error ([\w-]+)/.exec(Buffer.concat(chunks).toString())?.[1] ?? '?');
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"outcome":"queued"}');
      });
    });
    stubs.push(peer);
    await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
    const folder = newFolder();
    const a = await serve(await freePort(), folder, [
      `http://127.0.0.1:${(peer.address() as AddressInfo).port}`,
    ]);
    await until(async () => (await metric(a, 'app_fleet_peers')) === 1, 15_000);
    const ids = await errorsWhileIngestFails(a, 'cut', REPORTS);

    expect(await a.stop()).toBe(0);
    servers.splice(servers.indexOf(a), 1);
    expect(handedOver(a)).toMatchObject({ given: TAKEN_BEFORE_DYING, left: REPORTS - TAKEN_BEFORE_DYING });
    expect(taken).toHaveLength(TAKEN_BEFORE_DYING);
    // What the peer did not acknowledge is still in the folder: a process on it (the container
    // restarted on the same emptyDir) sends it once the ingest is back.
    expect(readdirSync(folder).filter((name) => name.endsWith('.envelope'))).toHaveLength(
      REPORTS - TAKEN_BEFORE_DYING,
    );
    ingest.setMode('ok');
    const restarted = await serve(await freePort(), folder, []);
    const kept = ids.filter((id) => !taken.includes(id));
    await until(() => arrivals(kept).every((count) => count >= 1), 90_000, 100).catch((error: unknown) => {
      throw new Error(`${String(error)}\narrivals ${JSON.stringify(arrivals(kept))}\n${restarted.output()}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Each either the peer's or delivered from the folder: none in both, none in neither.
    expect(arrivals(kept)).toEqual(Array(kept.length).fill(1));
    expect(arrivals(taken)).toEqual(Array(taken.length).fill(0));
    expect([...taken, ...kept].sort()).toEqual([...ids].sort());
  }, 180_000);
});
