// Reading a request body whose cost a stranger cannot raise: memory is bounded by the bytes all
// uploads hold together (a budget shared by every upload), not by a count of uploads, so clients
// that trickle a byte a second hold nothing and cannot lock out the ones that send at once; and
// each upload has a deadline that follows its declared length (a minimum rate), so a slow one ends.
import type { IncomingMessage } from 'node:http';

/** The bytes every upload holds together, shared by all readers of one budget. */
export interface UploadBudget {
  /** Bytes held right now. */
  held: () => number;
  readonly maxBytes: number;
  /** Takes `bytes` from the budget; false (and nothing taken) when they do not fit. */
  take: (bytes: number) => boolean;
  give: (bytes: number) => void;
}

export function createUploadBudget(maxBytes: number): UploadBudget {
  let held = 0;
  return {
    held: () => held,
    maxBytes,
    take: (bytes) => {
      if (held + bytes > maxBytes) return false;
      held += bytes;
      return true;
    },
    give: (bytes) => {
      held = Math.max(0, held - bytes);
    },
  };
}

export interface UploadLimits {
  /** Larger bodies are refused, declared or not. */
  maxBytes: number;
  /** Time every upload gets, whatever its length. */
  graceMs: number;
  /** The slowest rate accepted: the deadline is grace + declared length ÷ this rate… */
  minBytesPerSecond: number;
  /** …and never later than this. */
  maxMs: number;
}

export type UploadResult =
  /** `release` gives the body's bytes back to the budget: call it once done with the body. */
  | { kind: 'body'; body: Buffer; release: () => void }
  | { kind: 'too-large' }
  /** The budget is spent: other uploads hold it; try again shortly. */
  | { kind: 'busy' }
  | { kind: 'too-slow' }
  /** The client went away, or sent fewer bytes than it declared. */
  | { kind: 'aborted' };

/** When an upload of `declaredBytes` must have arrived, in ms from its start. */
export function uploadDeadlineMs(declaredBytes: number, limits: UploadLimits): number {
  return Math.min(limits.maxMs, limits.graceMs + (declaredBytes * 1000) / limits.minBytesPerSecond);
}

/**
 * Reads the body. A refused body gives its bytes back to the budget before this resolves and is
 * buffered no further; the caller answers, then discards the rest (`req.resume()`) or closes. A
 * body read whole stays counted until the caller calls `release`, so work done with it afterwards
 * (checking, forwarding) is bounded by the same budget.
 */
export function readUpload(
  req: IncomingMessage,
  budget: UploadBudget,
  limits: UploadLimits,
): Promise<UploadResult> {
  const rawLength = req.headers['content-length'];
  // Chunked: no length to check ahead or to give a deadline; the largest allowed stands in for it.
  const declared = rawLength === undefined ? null : Number(rawLength);
  if (declared !== null && (!Number.isSafeInteger(declared) || declared < 0))
    return Promise.resolve({ kind: 'aborted' });
  if (declared !== null && declared > limits.maxBytes) return Promise.resolve({ kind: 'too-large' });
  // Refused now rather than halfway, when it could never fit beside what is held.
  if (budget.held() + (declared ?? 0) > budget.maxBytes) return Promise.resolve({ kind: 'busy' });

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let taken = 0;
    let settled = false;
    const settle = (result: UploadResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      if (result.kind !== 'body') {
        budget.give(taken);
        chunks.length = 0;
      }
      resolve(result);
    };
    const deadline = uploadDeadlineMs(declared ?? limits.maxBytes, limits);
    const timer = setTimeout(() => settle({ kind: 'too-slow' }), deadline);
    const onData = (chunk: Buffer) => {
      if (taken + chunk.length > limits.maxBytes) return settle({ kind: 'too-large' });
      if (!budget.take(chunk.length)) return settle({ kind: 'busy' });
      taken += chunk.length;
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (declared !== null && taken !== declared) return settle({ kind: 'aborted' });
      const body = Buffer.concat(chunks);
      chunks.length = 0;
      let held = taken;
      const release = () => {
        budget.give(held);
        held = 0;
      };
      settle({ kind: 'body', body, release });
    });
    req.on('error', () => settle({ kind: 'aborted' }));
    req.on('close', () => settle({ kind: 'aborted' }));
  });
}
