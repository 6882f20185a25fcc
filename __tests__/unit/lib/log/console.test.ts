import { EventEmitter } from 'node:events';
import { runInNewContext } from 'node:vm';
import { captureConsole, HOLD_MS, MAX_HELD, plainText } from '@lib/log/console';
import { causeChain, errorFields, MAX_CAUSE_DEPTH } from '@lib/log/logger';
import { noteLogged } from '@lib/log/logged-errors';

describe('captureConsole', () => {
  let stdout: jest.SpyInstance;
  let stderr: jest.SpyInstance;

  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  const lines = (spy: jest.SpyInstance) => spy.mock.calls.map(([line]) => JSON.parse(String(line)));

  it("writes Next's and Sentry's console lines as JSON, words kept, decoration gone", () => {
    const target = { ...console };
    const fakeProcess = new EventEmitter() as unknown as NodeJS.Process;
    captureConsole(target, fakeProcess);
    target.log(' \u001b[32m✓\u001b[39m Running next.config.ts took 47ms');
    target.error('Invalid Sentry Dsn: %s', 'https://host/1');
    expect(lines(stdout)).toEqual([
      expect.objectContaining({
        level: 'info',
        event: 'console',
        method: 'log',
        message: 'Running next.config.ts took 47ms',
      }),
    ]);
    expect(lines(stderr)).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'console',
        message: 'Invalid Sentry Dsn: https://host/1',
      }),
    ]);
  });

  it("replaces Node's text printer of process warnings with a JSON line", () => {
    const fakeProcess = new EventEmitter() as unknown as NodeJS.Process;
    const textPrinter = jest.fn();
    fakeProcess.on('warning', textPrinter);
    captureConsole({ ...console }, fakeProcess);
    const warning = Object.assign(new Error('Buffer() is deprecated'), { name: 'DeprecationWarning' });
    fakeProcess.emit('warning', warning);
    expect(textPrinter).not.toHaveBeenCalled();
    expect(lines(stderr)).toEqual([
      expect.objectContaining({ event: 'process.warning', type: 'DeprecationWarning' }),
    ]);
  });

  it('scrubs what it writes, as an error report is: Next prints errors whole', () => {
    const target = { ...console };
    captureConsole(target, new EventEmitter() as unknown as NodeJS.Process);
    target.error(' ⨯ Error: upstream said 401 for Bearer sk_live_bearer123\n    at handler (pages/x.js:1:1)');
    const [line] = lines(stderr);
    expect(line.message).toBe(
      'Error: upstream said 401 for Bearer [Filtered]\n    at handler (pages/x.js:1:1)',
    );
  });

  it('keeps words that merely start with a symbol', () => {
    expect(plainText(['/api/health answered'])).toBe('/api/health answered');
    expect(plainText(['[cache] warm'])).toBe('[cache] warm');
  });
});

describe('errorFields', () => {
  it('keeps the type, message, stack and code of an error', () => {
    const error = Object.assign(new RangeError('too far'), { code: 'E_FAR' });
    expect(errorFields(error)).toEqual({
      type: 'RangeError',
      message: 'too far',
      stack: expect.stringContaining('RangeError: too far'),
      code: 'E_FAR',
    });
  });

  it('describes what is not an error without throwing', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(errorFields('plain words')).toEqual({ type: 'string', message: 'plain words' });
    expect(errorFields({ reason: 'x' })).toEqual({ type: 'object', message: '{"reason":"x"}' });
    expect(errorFields(cycle)).toEqual({ type: 'object', message: '[object Object]' });
    expect(errorFields(undefined)).toEqual({ type: 'undefined', message: 'undefined' });
  });
});

describe('plainText: the glyph Next puts before its words', () => {
  it.each([
    ['✓ Ready in 120ms', 'Ready in 120ms'],
    ['   ⚠ Slow page', 'Slow page'],
    // A glyph of two code points: the sign and its emoji presentation selector.
    ['⚠️ Slow page', 'Slow page'],
    ['▲  Next.js 16.4.5', 'Next.js 16.4.5'],
  ])('%j is %j', (line, words) => {
    expect(plainText([line])).toBe(words);
  });

  it('leaves a symbol that is not followed by a space, and three in a row', () => {
    expect(plainText(['✓Ready'])).toBe('✓Ready');
    expect(plainText(['*** Ready'])).toBe('*** Ready');
  });

  it('ends without the line break Next writes after its words', () => {
    expect(plainText(['Compiled /_error\n'])).toBe('Compiled /_error');
  });
});

describe('captureConsole: what it leaves out', () => {
  afterEach(() => jest.restoreAllMocks());

  it('writes no line for a console call with nothing to say', () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const target = { ...console };
    captureConsole(target, new EventEmitter() as unknown as NodeJS.Process);
    target.log();
    target.log('\u001b[32m\u001b[39m  ');
    expect(stdout).not.toHaveBeenCalled();
  });
});

describe('errorFields: errors shaped oddly', () => {
  it('names an error with no name by its class, then as an Error', () => {
    class QuotaError extends Error {}
    const named = Object.assign(new QuotaError('over'), { name: '' });
    expect(errorFields(named).type).toBe('QuotaError');
    const bare = Object.assign(new Error('over'), { name: '' });
    Object.defineProperty(bare, 'constructor', { value: undefined });
    expect(errorFields(bare).type).toBe('Error');
  });

  it('has no stack field for an error without a stack, and no code unless it is a string', () => {
    const error = Object.assign(new Error('no stack'), { code: 42 });
    error.stack = undefined;
    const fields = errorFields(error);
    expect(fields).toStrictEqual({ type: 'Error', message: 'no stack' });
  });

  it('does not throw for an error whose properties do, and says it could not describe it', () => {
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'name', {
      get() {
        throw new Error('no name for you');
      },
    });
    expect(errorFields(hostile)).toEqual({ type: 'unknown', message: 'the error could not be described' });
  });
});

describe('captureConsole: an error Next prints that the reporter reports', () => {
  let stderr: jest.SpyInstance;
  const consoleLines = () =>
    stderr.mock.calls
      .map(([line]) => JSON.parse(String(line)) as { event: string; message: string })
      .filter(({ event }) => event === 'console');

  beforeEach(() => {
    jest.useFakeTimers();
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const captured = (holdMs?: number) => {
    const target = { ...console };
    const fakeProcess = new EventEmitter() as unknown as NodeJS.Process;
    captureConsole(target, fakeProcess, holdMs === undefined ? {} : { holdMs });
    return { target, fakeProcess };
  };

  it('writes nothing for an error already reported (Next prints it after onRequestError)', () => {
    const { target } = captured();
    const error = new Error('fetch failed');
    noteLogged(error);
    target.error(' ⨯', error);
    target.error(error);
    jest.runAllTimers();
    expect(consoleLines()).toEqual([]);
  });

  it('writes nothing for an error reported within HOLD_MS of its print (Next prints it first)', () => {
    const { target } = captured();
    const error = new Error('fetch failed');
    target.error(error);
    jest.advanceTimersByTime(HOLD_MS - 1);
    noteLogged(error);
    jest.advanceTimersByTime(1);
    expect(consoleLines()).toEqual([]);
  });

  it('writes the line once HOLD_MS passed with no report (an error that is not reported)', () => {
    const { target } = captured();
    target.error(new Error('Invalid JSON'));
    jest.advanceTimersByTime(HOLD_MS - 1);
    expect(consoleLines()).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(consoleLines()).toEqual([
      expect.objectContaining({ message: expect.stringContaining('Invalid JSON') }),
    ]);
    const error = new Error('reported too late');
    target.error(error);
    jest.advanceTimersByTime(HOLD_MS);
    noteLogged(error);
    expect(consoleLines()).toHaveLength(2);
  });

  it('holds for the time it is given', () => {
    const { target } = captured(10);
    target.error(new Error('x'));
    jest.advanceTimersByTime(10);
    expect(consoleLines()).toHaveLength(1);
  });

  it('writes a line at once when one of its errors is not reported and no more can wait', () => {
    const { target } = captured();
    for (let i = 0; i < MAX_HELD; i += 1) target.error(new Error(`held ${i}`));
    expect(consoleLines()).toEqual([]);
    const reported = new Error('reported');
    noteLogged(reported);
    target.error(reported, new Error('not reported'));
    expect(consoleLines()).toEqual([
      expect.objectContaining({ message: expect.stringContaining('not reported') }),
    ]);
  });

  it('writes what still waits when the process exits, unless it was reported', () => {
    const { target, fakeProcess } = captured();
    const reported = new Error('reported by then');
    target.error(new Error('waiting at exit'));
    target.error(reported);
    noteLogged(reported);
    fakeProcess.emit('exit', 0);
    expect(consoleLines()).toEqual([
      expect.objectContaining({ message: expect.stringContaining('waiting at exit') }),
    ]);
    // Written once: its timer is gone.
    jest.runAllTimers();
    expect(consoleLines()).toHaveLength(1);
  });

  it('knows an error from another realm (a VM context, as a bundle may be)', () => {
    const { target } = captured();
    const foreign = runInNewContext('new Error("from another realm")') as Error;
    expect(foreign instanceof Error).toBe(false);
    noteLogged(foreign);
    target.error(foreign);
    jest.runAllTimers();
    expect(consoleLines()).toEqual([]);
  });

  it('writes lines without an error object at once, as before', () => {
    const { target } = captured();
    target.error('Invariant: something', { page: '/x' });
    expect(consoleLines()).toHaveLength(1);
  });
});

describe('errorFields: the chain of causes', () => {
  it('follows error.cause with each link’s type, message and code, never its stack', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), { code: 'ECONNREFUSED' });
    const error = new TypeError('fetch failed', { cause: refused });
    expect(errorFields(error)).toEqual({
      type: 'TypeError',
      message: 'fetch failed',
      stack: expect.stringContaining('fetch failed'),
      cause: { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:4010', code: 'ECONNREFUSED' },
    });
  });

  it(`stops after ${MAX_CAUSE_DEPTH} causes, and so ends a cycle`, () => {
    const errors = Array.from({ length: MAX_CAUSE_DEPTH + 2 }, (_, i) => new Error(`level ${i}`));
    errors.forEach((error, i) => Object.assign(error, { cause: errors[i + 1] }));
    const messages: string[] = [];
    for (let link = errorFields(errors[0]).cause; link; link = link.cause) messages.push(link.message);
    expect(messages).toEqual(errors.slice(1, MAX_CAUSE_DEPTH + 1).map(({ message }) => message));
    const cycle = new Error('me');
    Object.assign(cycle, { cause: cycle });
    let depth = 0;
    for (let link = errorFields(cycle).cause; link; link = link.cause) depth += 1;
    expect(depth).toBe(MAX_CAUSE_DEPTH);
    expect(causeChain(errors[0], 1)).toEqual({ type: 'Error', message: 'level 1' });
    expect(causeChain(errors[0], 0)).toBeUndefined();
  });

  it('describes a cause that is not an error, and has no cause field without one', () => {
    expect(errorFields(new Error('a', { cause: 'the disk is full' })).cause).toEqual({
      type: 'string',
      message: 'the disk is full',
    });
    expect(errorFields(new Error('a', { cause: { errno: -111 } })).cause).toEqual({
      type: 'object',
      message: '{"errno":-111}',
    });
    expect(errorFields(new Error('a', { cause: null })).cause).toEqual({ type: 'object', message: 'null' });
    expect(errorFields(new Error('a', { cause: undefined }))).not.toHaveProperty('cause');
    expect(errorFields(new Error('a'))).not.toHaveProperty('cause');
    expect(causeChain('a string')).toBeUndefined();
    expect(causeChain(null)).toBeUndefined();
  });

  it('ends the chain at a cause that cannot be read, without throwing', () => {
    const error = new Error('outer');
    Object.defineProperty(error, 'cause', {
      get() {
        throw new Error('no cause for you');
      },
    });
    const fields = errorFields(error);
    expect(fields.message).toBe('outer');
    expect(fields).not.toHaveProperty('cause');
  });
});

describe('errorFields and captureConsole: the edges', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('gives a stack only for an error, never for another object that has one', () => {
    expect(errorFields({ stack: 'at somewhere', message: 'x' })).not.toHaveProperty('stack');
    expect(causeChain(undefined)).toBeUndefined();
  });

  it('never holds a line for an error reported already: such lines take no place among those waiting', () => {
    jest.useFakeTimers();
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const target = { ...console };
    captureConsole(target, new EventEmitter() as unknown as NodeJS.Process);
    for (let i = 0; i < MAX_HELD; i += 1) {
      const error = new Error(`reported ${i}`);
      noteLogged(error);
      target.error(error);
    }
    target.error(new Error('not reported yet'));
    expect(stderr).not.toHaveBeenCalled();
  });

  it('knows an object made on the Error prototype as an error', () => {
    jest.useFakeTimers();
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const target = { ...console };
    captureConsole(target, new EventEmitter() as unknown as NodeJS.Process);
    const made = Object.create(Error.prototype) as Error;
    noteLogged(made);
    target.error(made);
    jest.runAllTimers();
    expect(stderr).not.toHaveBeenCalled();
  });

  it('keeps no process up while a line waits', () => {
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const target = { ...console };
    const fakeProcess = new EventEmitter() as unknown as NodeJS.Process;
    captureConsole(target, fakeProcess);
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
    const before = timers();
    target.error(new Error('waiting'));
    expect(timers()).toBe(before);
    // (Written now, its timer cleared: nothing of this test outlives it.)
    fakeProcess.emit('exit', 0);
  });
});
