import type { Probe } from '@lib/health/report';
import { ALLOWED_METHODS, HEALTH_CONTENT_TYPE, probeResponse } from '@lib/health/response';
import type { HealthReport } from '@lib/health/types';

const report = (status: HealthReport['status']): HealthReport => ({
  status,
  version: '1.0.0',
  releaseId: 'r1',
  checks: {},
});
const reporting = (status: HealthReport['status']) => {
  const fixed = report(status);
  return jest.fn<Promise<HealthReport>, [Probe]>(async () => fixed);
};

describe('probeResponse', () => {
  it.each([
    ['pass', 200],
    ['warn', 200],
    ['fail', 503],
  ] as const)('answers GET for a %s report with %i and the report as health+json', async (status, code) => {
    const response = await probeResponse('GET', 'ready', reporting(status));
    expect(response.status).toBe(code);
    expect(response.headers).toEqual({
      'Cache-Control': 'no-store',
      'Content-Type': HEALTH_CONTENT_TYPE,
      'Content-Length': String(Buffer.byteLength(response.body!)),
    });
    expect(JSON.parse(response.body!)).toEqual(report(status));
  });

  it('answers HEAD with the status and headers of GET and no body at all', async () => {
    const source = reporting('fail');
    const get = await probeResponse('GET', 'live', source);
    const head = await probeResponse('HEAD', 'live', source);
    expect(head.status).toBe(get.status);
    expect(head.headers).toEqual(get.headers);
    expect(head).not.toHaveProperty('body');
  });

  it('serialises a report once, however often it is asked for', async () => {
    const source = reporting('pass');
    const stringify = jest.spyOn(JSON, 'stringify');
    await probeResponse('GET', 'ready', source);
    await probeResponse('GET', 'ready', source);
    await probeResponse('HEAD', 'ready', source);
    expect(stringify).toHaveBeenCalledTimes(1);
    stringify.mockRestore();
  });

  it('answers OPTIONS with 204 and Allow, without building a report', async () => {
    const source = reporting('pass');
    expect(await probeResponse('OPTIONS', 'overall', source)).toEqual({
      status: 204,
      headers: { 'Cache-Control': 'no-store', Allow: ALLOWED_METHODS },
    });
    expect(source).not.toHaveBeenCalled();
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', undefined])(
    'answers %p with 405 and Allow',
    async (method) => {
      const source = reporting('pass');
      const response = await probeResponse(method, 'overall', source);
      expect(response.status).toBe(405);
      expect(response.headers.Allow).toBe(ALLOWED_METHODS);
      expect(JSON.parse(response.body!)).toEqual({
        status: 'fail',
        output: `Method not allowed. Use ${ALLOWED_METHODS}.`,
      });
      expect(source).not.toHaveBeenCalled();
    },
  );
});
