import { guardStream, writeGuarded } from '@lib/log/destination';
import { log, logEnabled, setLogLevel } from '@lib/log/logger';
import { processSlot } from '@lib/process/slots';

afterEach(() => {
  jest.restoreAllMocks();
  setLogLevel('info');
});

function captured(stream: NodeJS.WriteStream) {
  return jest.spyOn(stream, 'write').mockImplementation(() => true);
}

describe('log', () => {
  it('writes info as one JSON line on stdout', () => {
    const stdout = captured(process.stdout);
    const stderr = captured(process.stderr);
    log('info', 'lifecycle.ready', { port: 3000 });
    expect(stderr).not.toHaveBeenCalled();
    const line = String(stdout.mock.calls[0]![0]);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'info',
      event: 'lifecycle.ready',
      port: 3000,
    });
  });

  it('writes nothing below the level set, and says so to callers that would build fields', () => {
    const stdout = captured(process.stdout);
    const stderr = captured(process.stderr);
    setLogLevel('warn');
    expect(logEnabled('info')).toBe(false);
    expect(logEnabled('warn')).toBe(true);
    log('info', 'http.request');
    log('warn', 'x.y');
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).toHaveBeenCalledTimes(1);
    setLogLevel('silent');
    log('error', 'x.z');
    expect(stderr).toHaveBeenCalledTimes(1);
  });

  it('writes debug lines on stdout once LOG_LEVEL asks for them', () => {
    const stdout = captured(process.stdout);
    log('debug', 'x.hidden');
    expect(stdout).not.toHaveBeenCalled();
    setLogLevel('debug');
    log('debug', 'x.shown');
    expect(JSON.parse(String(stdout.mock.calls[0]![0]))).toMatchObject({ level: 'debug', event: 'x.shown' });
  });

  it.each(['warn', 'error'] as const)('writes %s on stderr', (level) => {
    const stdout = captured(process.stdout);
    const stderr = captured(process.stderr);
    log(level, 'x.y');
    expect(stdout).not.toHaveBeenCalled();
    expect(JSON.parse(String(stderr.mock.calls[0]![0])).level).toBe(level);
  });

  it('keeps a message with newlines on one line', () => {
    const stderr = captured(process.stderr);
    log('error', 'server.error', { message: 'one\ntwo' });
    expect(String(stderr.mock.calls[0]![0]).trimEnd().split('\n')).toHaveLength(1);
  });

  it('still logs the event when a field cannot be serialised', () => {
    const stderr = captured(process.stderr);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    log('error', 'x.cycle', { cycle, big: 1n, port: 3000 });
    expect(JSON.parse(String(stderr.mock.calls[0]![0]))).toEqual(
      expect.objectContaining({ event: 'x.cycle', cycle: { self: '[Circular]' }, port: 3000 }),
    );
  });

  it("never throws when a field's getter does", () => {
    const stderr = captured(process.stderr);
    const hostile = {
      get message(): string {
        throw new Error('no');
      },
    };
    expect(() => log('error', 'x.hostile', { hostile })).not.toThrow();
    expect(() => log('error', 'x.after')).not.toThrow();
    expect(JSON.parse(String(stderr.mock.calls.at(-1)![0]))).toMatchObject({ event: 'x.after' });
  });

  it('never throws, even when the stream does, and writes to that stream no more', () => {
    // A stream of its own: a broken mark on process.stdout would outlive this file (it is kept on
    // the stream, for every copy of the module) and silence the log lines of the files after it.
    const { Writable } = jest.requireActual<typeof import('node:stream')>('node:stream');
    const write = jest.fn(() => {
      throw new Error('EPIPE');
    });
    const stream = new Writable({ write });
    jest.spyOn(stream, 'write').mockImplementation(write);
    expect(() => writeGuarded(stream, '{"event":"x.y"}\n')).not.toThrow();
    expect(() => writeGuarded(stream, '{"event":"x.z"}\n')).not.toThrow();
    expect(write).toHaveBeenCalledTimes(1);
  });
});

describe('a log stream whose reader has gone', () => {
  /** A stream whose every write fails the way a pipe with no reader does: later, as an event. */
  function brokenPipe() {
    const { Writable } = jest.requireActual<typeof import('node:stream')>('node:stream');
    let writes = 0;
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        writes += 1;
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
      },
    });
    return { stream, writes: () => writes };
  }

  it('absorbs the write error and writes nothing more to it', async () => {
    const { stream, writes } = brokenPipe();
    const uncaught = jest.fn();
    process.on('uncaughtException', uncaught);
    try {
      writeGuarded(stream, '{"event":"first"}\n');
      // The error event arrives on a later tick.
      await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 100; i += 1) writeGuarded(stream, '{"event":"more"}\n');
      await new Promise((resolve) => setImmediate(resolve));
      expect(writes()).toBe(1);
      expect(uncaught).not.toHaveBeenCalled();
    } finally {
      process.off('uncaughtException', uncaught);
    }
  });

  it('has an error listener before the first write, so the error cannot go uncaught', () => {
    const { stream } = brokenPipe();
    guardStream(stream);
    expect(stream.listenerCount('error')).toBe(1);
    guardStream(stream);
    expect(stream.listenerCount('error')).toBe(1);
  });
});

describe('a stream that reported an error', () => {
  it('is written to no more, once its error event has come', () => {
    const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
    const write = jest.fn(() => true);
    const stream = Object.assign(new EventEmitter(), { write }) as unknown as NodeJS.WritableStream;
    writeGuarded(stream, '{"event":"first"}\n');
    stream.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    writeGuarded(stream, '{"event":"second"}\n');
    expect(write).toHaveBeenCalledTimes(1);
  });

  it('is marked under keys every copy of the module shares, in every bundle', () => {
    const { EventEmitter } = jest.requireActual<typeof import('node:events')>('node:events');
    const stream = Object.assign(new EventEmitter(), {
      write: () => true,
    }) as unknown as NodeJS.WritableStream;
    guardStream(stream);
    stream.emit('error', new Error('write EPIPE'));
    const marks = stream as unknown as Record<symbol, unknown>;
    expect(marks[Symbol.for('app-shell.log.guarded')]).toBe(true);
    expect(marks[Symbol.for('app-shell.log.broken')]).toBe(true);
  });
});

describe('the logger', () => {
  it("is the process's one, kept in its slot: a level set through one copy of the module holds in another", () => {
    setLogLevel('debug');
    expect(processSlot<{ level: string }>('logger').read()?.level).toBe('debug');
    jest.isolateModules(() => {
      const copy = jest.requireActual<typeof import('@lib/log/logger')>('@lib/log/logger');
      expect(copy.logEnabled('debug')).toBe(true);
      copy.setLogLevel('warn');
    });
    expect(logEnabled('info')).toBe(false);
  });
});
