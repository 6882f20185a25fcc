import { referenceOf } from '../../../../../lib/reporting/reference';
import { initServerReporting, reportServerError } from '../../../../../lib/reporting/node/reporter';
import { reportThroughServerHook } from '../../../../../lib/reporting/server-hook';

let lines: string[];

beforeAll(async () => {
  // No DSN: errors become JSON lines on stderr.
  await initServerReporting({ dsn: null, release: 'r1', environment: 'test' });
});

beforeEach(() => {
  lines = [];
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(String(chunk));
    return true;
  });
});

afterEach(() => jest.restoreAllMocks());

const context = { route: '/orders/[id]', method: 'POST', status: 500, path: '/orders/7?token=abc' };

describe('server reporting without a DSN', () => {
  it('writes one JSON line with reference, time, route, method, status, type, message and stack', () => {
    const error = new Error('database unreachable');
    const id = reportServerError(error, context);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      time: expect.any(String),
      level: 'error',
      event: 'server.error',
      reference: id,
      route: '/orders/[id]',
      method: 'POST',
      status: 500,
      // The route it matched, not its concrete segment.
      path: '/orders/[id]?token=[Filtered]',
      type: 'Error',
      message: 'database unreachable',
      stack: expect.stringContaining('database unreachable'),
    });
  });

  it('reports the same error object once and returns the same reference', () => {
    const error = new Error('once');
    const first = reportServerError(error, context);
    expect(reportServerError(error, context)).toBe(first);
    expect(referenceOf(error)).toBe(first);
    expect(lines).toHaveLength(1);
  });

  it('does not report statuses below 500', () => {
    expect(reportServerError(new Error('not found'), { ...context, status: 404 })).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('copes with values that are not errors', () => {
    expect(reportServerError('a string', context)).toMatch(/^[0-9a-f]{32}$/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(reportServerError(cyclic, context)).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.parse(lines[1]!).message).toBe('[object Object]');
  });

  it('is reachable through the hook that _error and the server entry use', () => {
    const id = reportThroughServerHook(new Error('via hook'), context);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.parse(lines[0]!).reference).toBe(id);
  });
});
