// A stand-in for the parts of Sentry's web API that `sentry-cli` calls to create a release and
// upload source maps (chunk upload, artifact bundle assembly), on loopback. It keeps what arrived:
// the requests, and each assembled bundle's files unzipped, so a test can check the maps and the
// debug IDs that reached "Sentry".
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateRawSync } from 'node:zlib';

export interface ApiCall {
  method: string;
  path: string;
  authorization?: string;
  json?: unknown;
}

export interface SentryApi {
  url: string;
  calls: ApiCall[];
  /** Files of every assembled artifact bundle, by name inside the bundle. */
  bundleFiles: Map<string, Buffer>;
  stop: () => Promise<void>;
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** The file parts of a multipart/form-data body. */
function multipartFiles(body: Buffer, contentType: string): { name: string; data: Buffer }[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  if (!boundary) return [];
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: { name: string; data: Buffer }[] = [];
  let start = body.indexOf(delimiter);
  while (start !== -1) {
    const next = body.indexOf(delimiter, start + delimiter.length);
    if (next === -1) break;
    const part = body.subarray(start + delimiter.length + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, headerEnd).toString();
    const data = part.subarray(headerEnd + 4);
    parts.push({ name: /name="([^"]+)"/.exec(headers)?.[1] ?? '', data });
    start = next;
  }
  return parts;
}

/** The entries of a zip archive (stored or deflated), from its central directory. */
export function unzip(zip: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i += 1) {
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localHeader = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString();
    const dataStart =
      localHeader + 30 + zip.readUInt16LE(localHeader + 26) + zip.readUInt16LE(localHeader + 28);
    const raw = zip.subarray(dataStart, dataStart + compressedSize);
    files.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}

export async function startSentryApi(): Promise<SentryApi> {
  const calls: ApiCall[] = [];
  const chunks = new Map<string, Buffer>();
  const bundleFiles = new Map<string, Buffer>();
  let base = '';
  const release = (version: string) => ({
    version,
    shortVersion: version,
    ref: null,
    url: null,
    dateCreated: '2026-11-22T00:00:00Z',
    dateReleased: null,
    lastEvent: null,
    newGroups: 0,
    projects: [],
  });

  const server: Server = createServer(async (req, res) => {
    const body = await readAll(req);
    const path = (req.url ?? '').split('?')[0]!;
    const call: ApiCall = { method: req.method ?? '', path, authorization: req.headers.authorization };
    if ((req.headers['content-type'] ?? '').includes('json') && body.length > 0)
      call.json = JSON.parse(body.toString());
    calls.push(call);
    const reply = (status: number, payload: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(payload));

    if (/\/chunk-upload\/$/.test(path) && req.method === 'GET') {
      return reply(200, {
        url: `${base}${path}`,
        chunkSize: 8 * 1024 * 1024,
        chunksPerRequest: 64,
        maxFileSize: 2 ** 31,
        maxRequestSize: 32 * 1024 * 1024,
        concurrency: 1,
        hashAlgorithm: 'sha1',
        compression: ['gzip'],
        accept: ['artifact_bundles', 'release_files', 'sources'],
      });
    }
    if (/\/chunk-upload\/$/.test(path) && req.method === 'POST') {
      for (const part of multipartFiles(body, req.headers['content-type'] ?? '')) {
        const data = part.name === 'file_gzip' ? gunzipSync(part.data) : part.data;
        chunks.set(createHash('sha1').update(data).digest('hex'), data);
      }
      return reply(200, {});
    }
    if (/\/artifactbundle\/assemble\/$/.test(path)) {
      const { chunks: wanted = [] } = (call.json ?? {}) as { chunks?: string[] };
      const missing = wanted.filter((sha) => !chunks.has(sha));
      if (missing.length > 0) return reply(200, { state: 'not_found', missingChunks: missing, detail: null });
      const zip = Buffer.concat(wanted.map((sha) => chunks.get(sha)!));
      for (const [name, data] of unzip(zip)) bundleFiles.set(name, data);
      return reply(200, { state: 'created', missingChunks: [], detail: null });
    }
    if (/\/releases\/$/.test(path) && req.method === 'POST') {
      return reply(201, release(String((call.json as { version?: string } | undefined)?.version)));
    }
    const finalized = /\/releases\/([^/]+)\/$/.exec(path);
    if (finalized && req.method === 'PUT') return reply(200, release(decodeURIComponent(finalized[1]!)));
    return reply(404, { detail: 'The stand-in does not know this endpoint' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    calls,
    bundleFiles,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
