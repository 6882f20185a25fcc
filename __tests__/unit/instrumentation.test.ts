// Next's instrumentation hook hands the server's reporting to lib/reporting/node/next-hooks.ts, and
// only in the Node runtime: the edge copy `npm run dev` compiles must never load server code.
const registerServerReporting = jest.fn(async () => {});
const reportRequestError = jest.fn(async () => {});
jest.mock('@lib/reporting/node/next-hooks', () => ({ registerServerReporting, reportRequestError }));

import { onRequestError, register } from '../../instrumentation';

const request = { path: '/broken', method: 'GET', headers: {} };
const context = {
  routerKind: 'Pages Router',
  routePath: '/broken',
  routeType: 'render',
  renderSource: undefined,
  revalidateReason: undefined,
} as const;

describe('instrumentation', () => {
  const runtime = process.env.NEXT_RUNTIME;
  afterEach(() => {
    if (runtime === undefined) delete process.env.NEXT_RUNTIME;
    else process.env.NEXT_RUNTIME = runtime;
    jest.clearAllMocks();
  });

  it('starts server-side reporting in the Node runtime, and waits for it', async () => {
    process.env.NEXT_RUNTIME = 'nodejs';
    let started = false;
    registerServerReporting.mockImplementationOnce(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      started = true;
    });
    await register();
    expect(registerServerReporting).toHaveBeenCalledTimes(1);
    expect(started).toBe(true);
  });

  it('hands every request error, with its request and context, to the reporting in the Node runtime', async () => {
    process.env.NEXT_RUNTIME = 'nodejs';
    const error = new Error('boom');
    let reported = false;
    reportRequestError.mockImplementationOnce(async () => {
      await new Promise((resolve) => setImmediate(resolve));
      reported = true;
    });
    await onRequestError(error, request, context);
    expect(reportRequestError).toHaveBeenCalledWith(error, request, context);
    expect(reported).toBe(true);
  });

  it.each(['edge', undefined])('loads no server code in the %s runtime', async (name) => {
    if (name === undefined) delete process.env.NEXT_RUNTIME;
    else process.env.NEXT_RUNTIME = name;
    await register();
    await onRequestError(new Error('boom'), request, context);
    expect(registerServerReporting).not.toHaveBeenCalled();
    expect(reportRequestError).not.toHaveBeenCalled();
  });
});
