// A stand-in for the error-reporting service's ingest, on loopback. It parses envelopes with
// @sentry/core's own parser and can be told to misbehave.
import { parseEnvelope } from '@sentry/core';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ReceivedEnvelope {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  header: Record<string, unknown>;
  items: [Record<string, unknown>, unknown][];
}

export interface SentryEventPayload {
  event_id: string;
  release?: string;
  environment?: string;
  message?: string;
  tags?: Record<string, string>;
  request?: { url?: string; headers?: Record<string, string>; method?: string };
  exception?: {
    values?: {
      type?: string;
      value?: string;
      stacktrace?: {
        frames?: {
          filename?: string;
          abs_path?: string;
          lineno?: number;
          colno?: number;
          function?: string;
        }[];
      };
    }[];
  };
  debug_meta?: { images?: { type?: string; code_file?: string; debug_id?: string }[] };
  user?: unknown;
}

/**
 * `slow`: holds each envelope for SLOW_INGEST_MS and keeps it only if the sender is still there to
 * get the answer, as a sender that exits mid-request would lose it.
 */
export type IngestMode = 'ok' | 'rate-limited' | 'failing' | 'hanging' | 'slow';

export const SLOW_INGEST_MS = 1000;

export interface Ingest {
  port: number;
  envelopes: ReceivedEnvelope[];
  events: () => SentryEventPayload[];
  eventsWithMessage: (text: string) => SentryEventPayload[];
  setMode: (mode: IngestMode) => void;
  /** Requests held unanswered in `hanging` mode whose sender has not given up (closed) yet. */
  heldOpen: () => number;
  /** Resolves once `predicate` holds, polling for up to `timeoutMs`. */
  waitFor: <T>(read: () => T | undefined, timeoutMs?: number) => Promise<T>;
  stop: () => Promise<void>;
}

export async function startIngest(port: number): Promise<Ingest> {
  const envelopes: ReceivedEnvelope[] = [];
  let mode: IngestMode = 'ok';
  const sockets = new Set<Socket>();
  const held = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (mode === 'hanging') {
        // Never answer; remember the request until its sender closes the connection.
        held.add(req.socket);
        req.socket.once('close', () => held.delete(req.socket));
        return;
      }
      try {
        const [header, items] = parseEnvelope(new Uint8Array(body));
        const envelope = {
          path: req.url ?? '',
          headers: req.headers,
          raw: body.toString('utf8'),
          header: header as Record<string, unknown>,
          items: items as unknown as [Record<string, unknown>, unknown][],
        };
        if (mode === 'slow') {
          setTimeout(() => {
            if (req.socket.destroyed) return;
            envelopes.push(envelope);
            res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
          }, SLOW_INGEST_MS);
          return;
        }
        // A 500 is not a receipt: Sentry kept nothing, so neither does the stand-in.
        if (mode !== 'failing') envelopes.push(envelope);
      } catch {
        res.writeHead(400).end('bad envelope');
        return;
      }
      if (mode === 'rate-limited') {
        res.writeHead(429, { 'Retry-After': '60', 'X-Sentry-Rate-Limits': '60:error:organization' }).end();
        return;
      }
      if (mode === 'failing') {
        res.writeHead(500).end('ingest broke');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });

  const events = () =>
    envelopes.flatMap((envelope) =>
      envelope.items
        .filter(([item]) => item.type === 'event')
        .map(([, payload]) => payload as SentryEventPayload),
    );
  const messageOf = (event: SentryEventPayload) =>
    [event.message, ...(event.exception?.values ?? []).map((v) => v.value)].filter(Boolean).join(' ');

  return {
    port,
    envelopes,
    events,
    eventsWithMessage: (text) => events().filter((event) => messageOf(event).includes(text)),
    heldOpen: () => held.size,
    setMode: (next) => {
      mode = next;
    },
    waitFor: async (read, timeoutMs = 15_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const value = read();
        if (value !== undefined) return value;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(
        `ingest: nothing arrived within ${timeoutMs} ms (${envelopes.length} envelopes so far)`,
      );
    },
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
