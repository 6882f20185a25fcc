// The management listener, on a worker thread of its own: GET /livez and /readyz answered from the
// main loop's heartbeat (./heartbeat.ts), whatever that loop is doing. Started by ./listener.ts;
// compiled to dist/lib/management/worker.js beside the server.
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { decideLive, decideReady, type Identity, type ManagementLimits } from './decide';
import { heartbeatIn } from './heartbeat';

export interface ManagementWorkerData {
  buffer: SharedArrayBuffer;
  host: string;
  port: number;
  limits: ManagementLimits;
  identity: Identity;
}

export type ManagementMessage = { kind: 'listening'; port: number } | { kind: 'failed'; message: string };

const HEADERS = {
  'Content-Type': 'application/health+json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

export function managementServer({ buffer, limits, identity }: ManagementWorkerData): http.Server {
  const heartbeat = heartbeatIn(buffer);
  return http.createServer({ requestTimeout: 5000, headersTimeout: 5000 }, (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const decide = path === '/livez' ? decideLive : path === '/readyz' ? decideReady : null;
    if (!decide) {
      res
        .writeHead(404, HEADERS)
        .end(JSON.stringify({ status: 'fail', output: 'Not found. Try /livez or /readyz.' }));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { ...HEADERS, Allow: 'GET, HEAD' })
        .end(JSON.stringify({ status: 'fail', output: 'Use GET.' }));
      return;
    }
    const report = decide(heartbeat.read(), Date.now(), limits, identity);
    const body = JSON.stringify(report);
    res.writeHead(report.status === 'fail' ? 503 : 200, {
      ...HEADERS,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}

if (parentPort && workerData) {
  const data = workerData as ManagementWorkerData;
  const port = parentPort;
  const server = managementServer(data);
  server.on('error', (error) =>
    port.postMessage({ kind: 'failed', message: error.message } satisfies ManagementMessage),
  );
  server.listen(data.port, data.host, () => {
    const address = server.address();
    port.postMessage({
      kind: 'listening',
      port: typeof address === 'object' && address ? address.port : data.port,
    } satisfies ManagementMessage);
  });
}
