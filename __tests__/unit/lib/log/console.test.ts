import { EventEmitter } from 'node:events';
import { captureConsole, plainText } from '../../../../lib/log/console';
import { errorFields } from '../../../../lib/log/logger';

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
