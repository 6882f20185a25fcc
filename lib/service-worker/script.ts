// The service worker's script as `npm run build` writes it (scripts/service-worker.ts): the compiled
// ./worker.ts, called with this build's settings, carrying both screens as whole documents. The
// screens are rendered from the shell's own screen and stylesheet, with ./come-back.ts as their one
// inline script; their Content-Security-Policy allows exactly that script and that style, by hash.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LanguageCopy, OutageKind } from '../screens/types';
import { BALANCER_STATUSES, RETRY_SECONDS } from '../error-pages/balancer-pages';
import { inlineText, type ScreenMarkup, staticScreenDocument } from '../error-pages/static-screen';
import type { ComeBackSettings } from './come-back';
import { ANSWER_HEADER, SCREEN_SEEN_PATH } from './paths';
import type { WorkerSettings } from './worker';

/** The most the worker's script may weigh, its two screens included (a unit test and the build check it). */
export const WORKER_MAX_BYTES = 24 * 1024;
/** Every cache the worker makes starts with it. */
export const CACHE_PREFIX = 'app-shell-screens-';

export const COME_BACK: ComeBackSettings = {
  answerHeader: ANSWER_HEADER,
  balancerStatuses: BALANCER_STATUSES,
  firstWaitMs: 1000,
  longestWaitMs: 8000,
};

/**
 * A compiled module (CommonJS, from tsc) as a script that calls one of its exports. The module may
 * import nothing at run time: a `require(` would fail in the browser, so it fails the build here.
 */
export function standalone(compiled: string, exported: string, args: string[]): string {
  if (/\brequire\(/.test(compiled))
    throw new Error(`A module made standalone imports something at run time.`);
  return `(function () {\nvar exports = {};\n${withoutComments(compiled)}\nexports.${exported}(${args.join(', ')});\n})();\n`;
}

/**
 * tsc's output less the comments that stand on lines of their own (all this code's comments): they
 * would weigh as much as the code in every screen. A comment after code on its line stays.
 */
export function withoutComments(compiled: string): string {
  return compiled.replace(/^[ \t]*\/\*[\s\S]*?\*\/[ \t]*\n/gm, '').replace(/^[ \t]*\/\/.*\n/gm, '');
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The compiled ./worker.ts and ./come-back.ts, which tsc writes beside this file's own compiled copy
 * (dist/lib/service-worker/).
 */
export function readCompiled(folder: string = __dirname): WorkerBuild['compiled'] {
  const read = (name: string) => readFileSync(path.join(folder, name), 'utf8');
  return { worker: read('worker.js'), comeBack: read('come-back.js') };
}

export interface WorkerBuild {
  on: boolean;
  build: { id: string; time: number };
  /** The compiled ./worker.ts and ./come-back.ts. */
  compiled: { worker: string; comeBack: string };
  /** The build's stylesheet. */
  css: string;
  /**
   * The screens' language: the server hands each visitor the worker of theirs (./serve.ts), so one
   * script carries one language, and its size does not grow with the languages offered.
   */
  language: LanguageCopy;
  /** What draws the screens (components/error-screen/markup.tsx); unused with the worker off. */
  markup: ScreenMarkup;
}

/** The worker's settings: both screens, and the headers they are answered with. */
export function workerSettings({ on, build, compiled, css, language, markup }: WorkerBuild): WorkerSettings {
  const { common: words, screens: copy } = language;
  const script = standalone(compiled.comeBack, 'comeBack', ['window', JSON.stringify(COME_BACK)]);
  const screens: Record<OutageKind, string> = {
    offline: on ? staticScreenDocument({ copy: copy.offline, words, css, script, markup }) : '',
    unavailable: on ? staticScreenDocument({ copy: copy.unavailable, words, css, script, markup }) : '',
  };
  const policy = [
    "default-src 'none'",
    `script-src ${sha256(inlineText(script, 'script'))}`,
    `style-src ${sha256(inlineText(css, 'style'))}`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    on,
    build,
    cachePrefix: CACHE_PREFIX,
    answerHeader: ANSWER_HEADER,
    balancerStatuses: BALANCER_STATUSES,
    seenPath: SCREEN_SEEN_PATH,
    screens,
    screenHeaders: {
      'Content-Type': 'text/html; charset=utf-8',
      'Cache-Control': 'no-store',
      'Retry-After': String(RETRY_SECONDS),
      'Content-Security-Policy': policy,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
    },
  };
}

/** The worker's whole script; throws when it would weigh more than WORKER_MAX_BYTES. */
export function workerScript(build: WorkerBuild): string {
  const text = standalone(build.compiled.worker, 'startWorker', [
    'self',
    JSON.stringify(workerSettings(build)),
  ]);
  const bytes = Buffer.byteLength(text);
  if (bytes > WORKER_MAX_BYTES)
    throw new Error(
      `The service worker's script is ${bytes} bytes; at most ${WORKER_MAX_BYTES} are allowed.`,
    );
  return text;
}
