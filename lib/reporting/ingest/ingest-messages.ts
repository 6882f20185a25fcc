// What the main thread and the ingest's thread (./ingest-thread.ts, ./ingest-worker.ts) say to each
// other, and what a sender answers: apart from both, so neither imports the other.

export interface IngestAnswer {
  status: number;
  rateLimits: string | null;
  retryAfter: string | null;
  /** Its first bytes, for the tunnel to pass back. */
  body: string;
}

export interface IngestSender {
  /** The ingest's answer; rejects when it could not be asked (timeout, unreachable, thread gone). */
  send: (body: string | Uint8Array, headers?: Record<string, string>) => Promise<IngestAnswer>;
}

export interface IngestLimits {
  connections: number;
  timeoutMs: number;
}

/** Makes (once per URL) the sender to an ingest's envelope endpoint, or null for none. */
export type IngestSenders = (url: string, limits: IngestLimits) => IngestSender | null;

export interface IngestWorkerData {
  kind: 'ingest';
  /** The envelope endpoint, as the SDK hands a transport its URL. */
  url: string;
  connections: number;
  timeoutMs: number;
}

export interface IngestRequest {
  id: number;
  body: string | Uint8Array;
  /** Sent besides the content type (a browser's user agent, for the tunnel's envelopes). */
  headers?: Record<string, string>;
}

export type IngestReply =
  | { id: number; status: number; rateLimits: string | null; retryAfter: string | null; body: string }
  | { id: number; failed: 'timeout' | 'unreachable' };

/** Something messages go to and come from: a worker, its parent port, or one end of a channel in tests. */
export interface MessageEnd {
  postMessage: (value: unknown) => void;
  onMessage: (listener: (value: unknown) => void) => void;
}
