// One request for another build's file, asked of one peer and streamed to the visitor. Whatever the
// peer does, it costs the visitor at most `timeoutMs` and at most `maxBytes`, and a body that is
// not whole (cut short, too long, too slow) is never answered as complete: the visitor's
// connection is closed instead, so no browser or cache keeps half a file.
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Peer } from './directory';
import { HOP_HEADER } from './paths';

/**
 * found: passed on whole; missing: the peer has no such file; failed: the peer failed (an error, a
 * refusal, past the time), so it is left out a while; cut: an answer started and was not whole;
 * gone: the visitor left before any answer, which says nothing of the peer.
 */
export type FetchOutcome = 'found' | 'missing' | 'failed' | 'cut' | 'gone';

/** Headers of a static file that travel back: what Next sets on it, nothing of the peer's own. */
const STATIC_ANSWER_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'cache-control',
  'etag',
  'last-modified',
  'vary',
] as const;
/** Headers asked with a static file: compression and the browser's cache validators. */
const STATIC_ASKED_HEADERS = ['accept-encoding', 'if-none-match', 'if-modified-since'] as const;
/** Never carried across: they describe one connection, not the request (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
]);

export interface FetchRequest {
  peer: Peer;
  /** The path and query asked of the peer: checked by ./names.ts, on the peer's own address. */
  target: string;
  kind: 'static' | 'data';
  req: IncomingMessage;
  res: ServerResponse;
  timeoutMs: number;
  maxBytes: number;
  /** Told why, when the outcome is 'failed'. */
  onFailed?: (why: FailureReason) => void;
}

function askedHeaders(kind: 'static' | 'data', from: IncomingHttpHeaders, remote: string | undefined) {
  const headers: Record<string, string | string[]> = { [HOP_HEADER]: '1' };
  if (kind === 'static') {
    for (const name of STATIC_ASKED_HEADERS) {
      const value = from[name];
      if (typeof value === 'string') headers[name] = value;
    }
    return headers;
  }
  // A page's data is rendered for this visitor (cookies, language): everything but the connection's.
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && name !== HOP_HEADER) headers[name] = value;
  }
  const forwardedFor = typeof from['x-forwarded-for'] === 'string' ? `${from['x-forwarded-for']}, ` : '';
  if (remote) headers['x-forwarded-for'] = `${forwardedFor}${remote}`;
  return headers;
}

function answerHeaders(
  kind: 'static' | 'data',
  from: IncomingHttpHeaders,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (kind === 'static') {
    for (const name of STATIC_ANSWER_HEADERS) {
      const value = from[name];
      if (value !== undefined) headers[name] = value;
    }
    return headers;
  }
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  }
  if (from['content-length'] !== undefined) headers['content-length'] = from['content-length'];
  return headers;
}

/** Whether a peer's answer is one to pass on: a file, or for data what the page answered. */
function passes(kind: 'static' | 'data', status: number): boolean {
  if (kind === 'static') return status === 200 || status === 304;
  return status < 500;
}

/**
 * Why a fetch failed, for the operator's line (lib/fleet/stage.ts): "timeout", "status 502",
 * "too large", or the error's code ("ECONNREFUSED").
 */
export type FailureReason = string;

export function fetchFromPeer({
  peer,
  target,
  kind,
  req,
  res,
  timeoutMs,
  maxBytes,
  onFailed,
}: FetchRequest): Promise<FetchOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let streaming = false;
    const finish = (outcome: FetchOutcome, why?: FailureReason) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      peer.inFlight -= 1;
      // Stryker disable next-line StringLiteral: every failure passes its why; this is for one that would not.
      if (outcome === 'failed') onFailed?.(why ?? 'error');
      resolve(outcome);
    };
    /** The answer cannot be whole: nothing sent yet is a failure; a started answer is cut. */
    const abandon = (why?: FailureReason) => {
      upstream.destroy();
      if (streaming) {
        res.destroy();
        finish('cut');
      } else {
        finish('failed', why);
      }
    };
    peer.inFlight += 1;
    // Stryker disable next-line StringLiteral: no method asks with GET too (Node's default).
    const method = req.method === 'HEAD' ? 'HEAD' : 'GET';
    const headers = askedHeaders(kind, req.headers, req.socket.remoteAddress);
    const ask = (again: boolean): http.ClientRequest => {
      const request = http.request(`${peer.base}${target}`, { method, agent: peer.agent, headers });
      request.on('error', (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the peer closed as this request went out on it (its idle timer,
        // its connection limit): the request never reached the peer, so it is asked once more, on
        // another connection, as Node's documentation advises (`request.reusedSocket`).
        // Stryker disable next-line ConditionalExpression: on loopback a closed kept-alive connection fails a request with ECONNRESET only; no test can make another code there.
        if (!again && !settled && !streaming && request.reusedSocket && error.code === 'ECONNRESET') {
          upstream = ask(true);
          return;
        }
        // Stryker disable next-line StringLiteral: Node's socket errors carry a code; this names one that would not.
        abandon(error.code ?? 'error');
      });
      request.on('response', answered);
      request.end();
      return request;
    };
    // One clock for the whole exchange, headers and body, a second ask included: a slow peer costs at most this.
    const timer = setTimeout(() => abandon('timeout'), timeoutMs);
    // The visitor went away: stop asking. (Also once the answer is whole: then `finish` has nothing
    // left to do, and destroying a request that has ended leaves its kept-alive socket pooled.) Not
    // the peer's failure: a browser drops a prefetch as it navigates, and the peer stays asked.
    res.on('close', () => {
      upstream.destroy();
      finish(streaming ? 'cut' : 'gone');
    });
    function answered(answer: IncomingMessage): void {
      const status = answer.statusCode ?? 0;
      if (status === 404 && kind === 'static') {
        answer.resume();
        upstream.destroy();
        return finish('missing');
      }
      const declared = Number(answer.headers['content-length'] ?? NaN);
      if (!passes(kind, status) || declared > maxBytes) {
        upstream.destroy();
        return finish('failed', declared > maxBytes ? 'too large' : `status ${status}`);
      }
      streaming = true;
      res.writeHead(status, answerHeaders(kind, answer.headers));
      let received = 0;
      answer.on('data', (chunk: Buffer) => {
        received += chunk.length;
        // No check against the declared length here: Node's parser passes on no byte past it.
        if (received > maxBytes) return abandon(); // (streaming: cut, not failed)
        // The visitor's pace, not the peer's: at most one chunk waits in memory.
        if (!res.write(chunk)) {
          answer.pause();
          res.once('drain', () => answer.resume());
        }
      });
      // A peer that sends less than it declared, or closes mid-body, ends in 'error' (Node's
      // "aborted"), never in 'end': an answer that ends is whole.
      answer.on('error', () => abandon()); // (streaming: cut)
      answer.on('end', () => {
        res.end();
        finish('found');
      });
    }
    let upstream = ask(false);
  });
}
