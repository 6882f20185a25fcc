// The production server's request lines go out batched (lib/log/destination.ts `batch`): every line
// a turn of the event loop made in one write, at once past BATCH_MAX_CHARS, and whatever waits
// written as the process exits; warnings and errors at once, always (lib/log/logger.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { BATCH_MAX_CHARS, guardedDestination } from '@lib/log/destination';
import { batchLogLines, log } from '@lib/log/logger';
import { ROOT } from '../../../support/paths';

/** A stream that keeps each write it is given, as one text. */
function recording() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      writes.push(String(chunk));
      callback();
    },
  });
  return { stream, writes };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const line = (n: number) => `{"event":"x.${n}"}\n`;

describe('a batching destination', () => {
  it('writes the lines of one turn in one write, in order, once the turn is over', async () => {
    const { stream, writes } = recording();
    const destination = guardedDestination(() => stream);
    destination.batch(true);
    for (let n = 0; n < 3; n += 1) destination.write(line(n));
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual([line(0) + line(1) + line(2)]);
    destination.write(line(3));
    await turn();
    expect(writes).toEqual([line(0) + line(1) + line(2), line(3)]);
    destination.batch(false);
  });

  it(`writes at once what reaches ${BATCH_MAX_CHARS} characters, and not one line before`, async () => {
    const { stream, writes } = recording();
    const destination = guardedDestination(() => stream);
    destination.batch(true);
    const long = `${'x'.repeat(BATCH_MAX_CHARS / 4 - 1)}\n`;
    for (let n = 0; n < 3; n += 1) destination.write(long);
    destination.write(`${'x'.repeat(BATCH_MAX_CHARS / 4 - 3)}\n`);
    expect(writes).toEqual([]);
    destination.write('y\n');
    // Exactly BATCH_MAX_CHARS now.
    expect(writes).toEqual([long.repeat(3) + `${'x'.repeat(BATCH_MAX_CHARS / 4 - 3)}\n` + 'y\n']);
    await turn();
    expect(writes).toHaveLength(1);
    destination.batch(false);
  });

  it('writes each line as it comes when batching is off, and what waited as it is turned off', () => {
    const { stream, writes } = recording();
    const destination = guardedDestination(() => stream);
    destination.write(line(0));
    expect(writes).toEqual([line(0)]);
    destination.batch(true);
    destination.write(line(1));
    destination.batch(false);
    expect(writes).toEqual([line(0), line(1)]);
    destination.write(line(2));
    expect(writes).toEqual([line(0), line(1), line(2)]);
  });
});

describe('what waits at exit', () => {
  it("is written by one 'exit' hook, added once however often batching is turned on", () => {
    const { stream, writes } = recording();
    const destination = guardedDestination(() => stream);
    const before = process.listeners('exit');
    destination.batch(true);
    const added = process.listeners('exit').filter((listener) => !before.includes(listener));
    try {
      expect(added).toHaveLength(1);
      destination.batch(false);
      destination.batch(true);
      expect(process.listeners('exit').filter((listener) => !before.includes(listener))).toEqual(added);
      destination.write(line(0));
      expect(writes).toEqual([]);
      (added[0] as (code: number) => void)(0);
      expect(writes).toEqual([line(0)]);
    } finally {
      destination.batch(false);
      for (const listener of added) process.off('exit', listener);
    }
  });
});

describe('the logger, batching in this process', () => {
  it('holds info lines to the end of the turn and writes warnings at once', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const spies = [
      jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        out.push(String(chunk));
        return true;
      }),
      jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        err.push(String(chunk));
        return true;
      }),
    ];
    try {
      batchLogLines(true);
      log('info', 'x.first');
      log('warn', 'x.second');
      log('info', 'x.third');
      expect(out).toEqual([]);
      expect(err.map((text) => (JSON.parse(text) as { event: string }).event)).toEqual(['x.second']);
      await turn();
      expect(out).toHaveLength(1);
      expect(
        out[0]!
          .split('\n')
          .filter(Boolean)
          .map((text) => (JSON.parse(text) as { event: string }).event),
      ).toEqual(['x.first', 'x.third']);
    } finally {
      batchLogLines(false);
      for (const spy of spies) spy.mockRestore();
    }
  });
});

describe('the production logger, batching', () => {
  // The logger as this checkout's sources are, for a process of its own (no build needed), pino
  // from the project's node_modules.
  let folder: string;
  let logger: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(tmpdir(), 'batched-lines-'));
    logger = path.join(folder, 'logger.js');
    buildSync({
      entryPoints: [path.join(ROOT, 'lib/log/logger.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      external: ['pino'],
      outfile: logger,
      logLevel: 'silent',
    });
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  /** A process that logs as the server does, then ends as `end` says; its stdout and stderr. */
  function logThenEnd(end: string) {
    const script = `
      const { batchLogLines, log } = require(${JSON.stringify(logger)});
      batchLogLines(true);
      for (let n = 0; n < 5; n += 1) log('info', 'http.request', { n });
      log('error', 'server.error', { n: 5 });
      ${end}
    `;
    return spawnSync(process.execPath, ['-e', script], {
      encoding: 'utf8',
      timeout: 10_000,
      env: { ...process.env, NODE_PATH: path.join(ROOT, 'node_modules') },
    });
  }
  const events = (text: string) =>
    text
      .split('\n')
      .filter(Boolean)
      .map((each) => (JSON.parse(each) as { event: string; n: number }).n);

  it.each([
    ['process.exit(1), as after a crash', 'process.exit(1)'],
    ['the event loop running dry', ''],
    ['an exception no one caught', 'setTimeout(() => { throw new Error("boom"); }, 0)'],
  ])('loses no line at %s', (_, end) => {
    const { stdout, stderr } = logThenEnd(end);
    expect(events(stdout)).toEqual([0, 1, 2, 3, 4]);
    expect(
      events(
        stderr
          .split('\n')
          .filter((each) => each.startsWith('{'))
          .join('\n'),
      ),
    ).toEqual([5]);
  });

  it('writes a warning or an error at once, before the info lines of its turn', () => {
    // Killed within the turn: the info lines were still waiting; the error was out.
    const { stdout, stderr } = logThenEnd('process.kill(process.pid, "SIGKILL")');
    expect(events(stdout)).toEqual([]);
    expect(events(stderr)).toEqual([5]);
  });
});
