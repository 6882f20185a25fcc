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
