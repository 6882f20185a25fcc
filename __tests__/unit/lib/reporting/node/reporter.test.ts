import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { wasLogged } from '@lib/log/logged-errors';
import { referenceOf } from '@lib/reporting/reference';
import { initServerReporting, reportServerError } from '@lib/reporting/node/reporter';
import { reportThroughServerHook } from '@lib/reporting/server-hook';
import { forgetMaps, serverMapsSlot } from '@lib/reporting/node/source-mapped-stack';

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
    const error = new Error('not found');
    expect(reportServerError(error, { ...context, status: 404 })).toBeUndefined();
    expect(lines).toEqual([]);
    expect(wasLogged(error)).toBe(false);
  });

  it('marks the error it wrote a line for, so that Next’s prints of it add none', () => {
    const error = new Error('logged once');
    reportServerError(error, context);
    expect(wasLogged(error)).toBe(true);
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

  it('carries the code and the chain of causes, scrubbed like the rest', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010?token=abc'), {
      code: 'ECONNREFUSED',
    });
    const error = Object.assign(new TypeError('fetch failed', { cause: refused }), { code: 'UND_ERR' });
    reportServerError(error, context);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toMatchObject({ type: 'TypeError', message: 'fetch failed', code: 'UND_ERR' });
    expect(line.cause).toEqual({
      type: 'Error',
      message: 'connect ECONNREFUSED 127.0.0.1:4010?token=[Filtered]',
      code: 'ECONNREFUSED',
    });
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('cause.stack');
  });

  it('has no code or cause fields for an error without them', () => {
    reportServerError(new Error('plain'), context);
    const line = JSON.parse(lines[0]!);
    expect(line).not.toHaveProperty('code');
    expect(line).not.toHaveProperty('cause');
  });

  it('writes the stack as it reads in the sources, through the maps the server said were kept', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'reporter-maps-'));
    try {
      const place = { bundles: path.join(dir, 'server'), maps: path.join(dir, 'sourcemaps/server') };
      mkdirSync(path.join(place.maps, 'pages'), { recursive: true });
      writeFileSync(
        path.join(place.maps, 'pages/broken.js.map'),
        JSON.stringify({
          version: 3,
          sources: ['webpack://app/./pages/broken.tsx'],
          names: [],
          mappings: 'AAEK',
        }),
      );
      serverMapsSlot.write(place);
      const error = new Error('The broken page failed to render');
      error.stack = `Error: The broken page failed to render\n    at Broken (${path.join(place.bundles, 'pages/broken.js')}:1:1)`;
      reportServerError(error, context);
      expect(JSON.parse(lines[0]!).stack).toBe(
        'Error: The broken page failed to render\n    at Broken (pages/broken.tsx:3:6)',
      );
    } finally {
      serverMapsSlot.clear();
      forgetMaps();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
