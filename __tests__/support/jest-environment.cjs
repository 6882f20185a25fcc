// Jest's Node environment with one more rule: no work a test file starts may run after the file
// has ended.
//
// When a file ends, Jest "soft-deletes" what the file put on its global: every property becomes an
// accessor that warns (JEST-01) when read and, when written, recurses until the stack overflows
// (jest-util 30). Work the file left running (a send it did not wait for, a timer) then warns,
// or crashes, in whichever file the worker runs next, or not at all if the worker exits first:
// an unrelated file goes red, on one machine's file order and not another's. This environment
// turns that warning into a failure that names the late code: of the file itself when the late
// work runs within SETTLE_MS of its end, else of the next file in the same worker.
//
// Jest deletes this way on Node 20, which CI runs first. On Node 24 it deletes nothing (its
// protect-from-deletion mark lands on the test context's Object.prototype, which every object
// inherits), so late work breaks nothing there and this check has nothing to see.
//
// Every suite uses it (jest*.config.js); only a file that needs a DOM asks for jsdom (as StrykerJS
// wraps it, `@jest-environment @stryker-mutator/jest-runner/jest-env/jsdom`), and
// __tests__/unit/test-environment/late-work.test.ts keeps it that way.
'use strict';

const path = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

/** How long a file's end waits for work it left behind to show itself. */
const SETTLE_MS = 25;

// Per worker process: this module is loaded once per worker, outside any test file's context.
/** @type {{ listening: boolean, late: unknown[], lastEnded: string | undefined }} */
const worker = { listening: false, late: [], lastEnded: undefined };

function listen() {
  if (worker.listening) return;
  worker.listening = true;
  process.on('warning', (warning) => {
    if (/** @type {NodeJS.ErrnoException} */ (warning).code === 'JEST-01') worker.late.push(warning);
  });
}

/** @param {string} file */
const relative = (file) => path.relative(process.cwd(), file);

/** @param {unknown} late a JEST-01 warning, or what late work threw */
function describeLate(late) {
  if (!(late instanceof Error)) return `Thrown: ${String(late)}`;
  const stack = late.stack ?? String(late);
  // A stack overflow's own trace is jest-util's recursion; its first lines say enough.
  return late instanceof RangeError ? stack.split('\n').slice(0, 3).join('\n') : stack;
}

/**
 * @param {unknown[]} late
 * @param {string} where
 */
function lateWorkError(late, where) {
  const error = new Error(
    `Work a test file left running ran after the file had ended (${where}). ` +
      'Await everything a test starts (flush, close, clear timers) before the file ends.\n\n' +
      late.map(describeLate).join('\n\n'),
  );
  // The traces above are the late code; this error's own stack is Jest's and says nothing.
  error.stack = error.message;
  return error;
}

class LateWorkGuardEnvironment extends TestEnvironment {
  /**
   * @param {import('@jest/environment').JestEnvironmentConfig} config
   * @param {import('@jest/environment').EnvironmentContext} context
   */
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    listen();
  }

  async setup() {
    await super.setup();
    const late = worker.late.splice(0);
    if (late.length > 0) {
      const last = worker.lastEnded
        ? `; the last file to end in this worker was ${relative(worker.lastEnded)}`
        : '';
      throw lateWorkError(late, `seen as ${relative(this.testPath)} started${last}`);
    }
  }

  async teardown() {
    await super.teardown();
    // Late work that writes to those globals overflows the stack inside jest-util; with no test
    // running nothing would catch that, and the worker would die without saying why.
    /** @param {unknown} error */
    const thrown = (error) => worker.late.push(error);
    process.on('uncaughtException', thrown);
    try {
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    } finally {
      process.off('uncaughtException', thrown);
    }
    // A warning is emitted on the next tick: let one raised in the last moment arrive.
    await new Promise((resolve) => setImmediate(resolve));
    const before = worker.lastEnded;
    worker.lastEnded = this.testPath;
    const late = worker.late.splice(0);
    if (late.length > 0) {
      const earlier = before
        ? `; the work is this file's, or that of a file that ended before it in this worker, the last of which was ${relative(before)}`
        : '';
      throw lateWorkError(late, `seen as ${relative(this.testPath)} ended${earlier}`);
    }
  }
}

module.exports = LateWorkGuardEnvironment;
