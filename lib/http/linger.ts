// Answering a request before its body has arrived, so that the answer reaches the client.
//
// A server that answers early (413 for a body declared too large, 503 when uploads are full) and
// then closes the connection with the client's bytes still unread makes the kernel reset it; the
// reset can overtake the answer, and the client sees a broken connection instead of the 413 or the
// 503 it should act on (a browser's SDK would then keep and resend the very report we refused).
// The cure web servers use is a lingering close (nginx's `lingering_close`, Apache's the same): send
// the answer, read and discard what is left, then close. Node's server has none, so it is here.
// A stranger's cost stays bounded: at most `maxBytes` discarded and `maxMs` waited, else the
// connection is cut; a rest declared larger than `maxBytes` is not waited for at all.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendPlain, writePlainHead } from './plain-response';

export interface LingerLimits {
  /** The most of a body's rest that is read and thrown away before the connection is cut. */
  maxBytes: number;
  /** The longest the rest is waited for. */
  maxMs: number;
}

/**
 * Sends a plain answer that ends the exchange (with `Connection: close`), then discards the rest
 * of the request's body within `limits` before the response ends and Node closes the connection.
 * A rest cut short ends the response unfinished. Never throws.
 */
export function answerThenDiscard(
  req: IncomingMessage,
  res: ServerResponse,
  answer: { status: number; message: string; headers?: Record<string, string> },
  limits: LingerLimits,
): void {
  const headers = { ...answer.headers, Connection: 'close' };
  // Nothing left to wait for, or more than would be waited for: Node closes once this is sent.
  if (req.readableEnded || Number(req.headers['content-length']) > limits.maxBytes)
    return sendPlain(res, answer.status, answer.message, headers);
  try {
    writePlainHead(res, answer.status, answer.message, headers);
    // The whole answer, its length declared: a client can read it now. Only the end waits.
    res.write(answer.message);
  } catch {
    // Headers already sent, or a response that cannot be written: ended the only way left.
    return void res.destroy();
  }
  let discarded = 0;
  const timer = setTimeout(() => req.destroy(), limits.maxMs);
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limits.maxBytes) req.destroy();
  });
  req.once('end', () => res.end());
  // However it ends (the rest all come, cut, or the client gone), the request closes.
  req.once('close', () => clearTimeout(timer));
  req.resume();
}
