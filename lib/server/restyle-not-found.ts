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

/** What answers Next's 404 in the shell's words: `path` is the request's, as the pipeline read it. */
export type NotFoundAnswer = (req: IncomingMessage, res: ServerResponse, path: string) => void;

/** Where an answer keeps what restyleNotFound was given, and whether it restyled. */
export const NOT_FOUND_ANSWER = Symbol('app-shell.notFoundAnswer');
export const NOT_FOUND_PATH = Symbol('app-shell.notFoundPath');
export const RESTYLED = Symbol('app-shell.restyled');

/** An answer that can be restyled: the server's own (lib/server/shell-response.ts). */
export interface Restylable extends ServerResponse {
  [NOT_FOUND_ANSWER]: NotFoundAnswer | undefined;
  /** Set with the answer. */
  [NOT_FOUND_PATH]: string | undefined;
  [RESTYLED]: boolean;
}

/** The methods an answer writes with, as Node's own (with the private error head) are. */
export interface AnswerMethods {
  writeHead: ServerResponse['writeHead'];
  write: ServerResponse['write'];
  end: ServerResponse['end'];
}

/**
 * Watches `res` while Next answers it: its writeHead, write and end ask `restyling` first
 * (lib/server/shell-response.ts). Next's choice is known by the time it first writes (the head, or
 * a first write or end, which would write the head): nothing is sent yet, and `answer` writes the
 * shell's own answer with Node's methods. Next's compression, set up inside Next's handler, wraps
 * the `write`, `end` and `writeHead` it finds, these, so what Next or its compression writes after
 * that reaches them and is dropped. Three fields, not four closures made for each request.
 */
export function restyleNotFound(res: Restylable, answer: NotFoundAnswer, path: string): void {
  res[NOT_FOUND_ANSWER] = answer;
  res[NOT_FOUND_PATH] = path;
}

/**
 * Whether the answer is (now) the shell's, decided at the first of writeHead, write and end that
 * a watched answer meets: true, and the write is dropped; false, and it goes on as written. When
 * Next is about to answer with its 404 page, the shell's answer is written then, through `node`
 * (compression's methods, installed over the answer's own, stepped around), and every later write,
 * Next's or its compression's, is dropped.
 */
export function restyling(res: Restylable, status: number, node: AnswerMethods): boolean {
  if (res[RESTYLED]) return true;
  const answer = res[NOT_FOUND_ANSWER];
  if (answer === undefined || res.headersSent || !isNextNotFound(res.req, status)) return false;
  res[RESTYLED] = true;
  const dropping = { writeHead: res.writeHead, write: res.write, end: res.end };
  Object.assign(res, node);
  try {
    answer(res.req, res, res[NOT_FOUND_PATH] as string);
  } finally {
    Object.assign(res, dropping);
  }
  return true;
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
