// Next decides, the shell words it: when Next's own router ends a request on its 404 page, the
// visitor gets the shell's "Page not found" in their language (./not-found.ts) in its place. Next
// has already chosen the status, and every redirect, rewrite, middleware, locale and base path on
// the way; only the body and the headers that describe it change. Next's 404 page is pages/404.tsx
// in the default language, so nothing is lost where this does not apply.
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Where Next keeps what it knows of a request (next/dist/server/request-meta.js). Its router sets
 * `invokePath` to '/404' when no page, file or rule answers the path ("404 case" in
 * next/dist/server/lib/router-server.js) and when `/404` itself is asked for; no other answer of
 * Next's carries it. A Next upgrade that changes this is caught by __tests__/e2e/next-parity.test.ts.
 */
const NEXT_REQUEST_META = Symbol.for('NextInternalRequestMeta');

/** Whether Next is about to answer `req` with its 404 page. */
export function isNextNotFound(req: IncomingMessage, status: number): boolean {
  const meta = (req as IncomingMessage & { [NEXT_REQUEST_META]?: { invokePath?: unknown } })[
    NEXT_REQUEST_META
  ];
  return status === 404 && meta?.invokePath === '/404';
}

type Write = ServerResponse['write'];
type End = ServerResponse['end'];
type WriteHead = ServerResponse['writeHead'];

/**
 * Watches `res` while Next answers it. Next's choice is known by the time it first writes (the head,
 * or a first write or end, which would write the head): nothing is sent yet, and `answer` writes the
 * shell's own answer with Node's methods. Next's compression, set up inside Next's handler, wraps the
 * `write`, `end` and `writeHead` it finds, the ones installed here, so what Next or its compression
 * writes after that reaches them and is dropped.
 */
export function restyleNotFound(
  req: IncomingMessage,
  res: ServerResponse,
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  // The methods as the pipeline left them, before Next's compression wraps them: Node's own, and the
  // head that keeps every error answer private (lib/http/private-errors.ts).
  const node = { writeHead: res.writeHead, write: res.write, end: res.end };
  let restyled = false;
  /** Whether the answer is (now) the shell's: decided at the first of writeHead, write and end. */
  const restyle = (status: number): boolean => {
    if (restyled) return true;
    if (res.headersSent || !isNextNotFound(req, status)) return false;
    restyled = true;
    // The shell's answer through Node's own methods (compression's are installed over these);
    // then every later write, Next's or its compression's, is dropped.
    const dropping = { writeHead: res.writeHead, write: res.write, end: res.end };
    Object.assign(res, { writeHead: node.writeHead, write: node.write, end: node.end });
    try {
      answer(req, res);
    } finally {
      Object.assign(res, dropping);
    }
    return true;
  };
  res.writeHead = function writeHead(this: ServerResponse, status: number, ...rest: unknown[]) {
    if (restyle(status)) return this;
    return (node.writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as WriteHead;
  // Node's write and end would write the head (through writeHead, above) and then Next's bytes
  // after the shell's answer: so the choice is made before them too.
  res.write = function write(this: ServerResponse, ...args: unknown[]) {
    if (restyle(this.statusCode)) return true;
    return (node.write as (...args: unknown[]) => boolean).apply(this, args);
  } as Write;
  res.end = function end(this: ServerResponse, ...args: unknown[]) {
    if (restyle(this.statusCode)) {
      const callback = args.find((arg) => typeof arg === 'function') as (() => void) | undefined;
      if (callback) queueMicrotask(callback);
      return this;
    }
    return (node.end as (...args: unknown[]) => ServerResponse).apply(this, args);
  } as End;
}

/** The headers of Next's answer that describe its body, replaced with those of the shell's. */
export const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'transfer-encoding',
  'etag',
  'vary',
];
