// What Next's instrumentation hook does with a request error: a page's error is reported at once
// as a 500; an API route's waits for the status it was answered with, when the app's server can
// tell it, else counts as a 500.
import { reportRequestError } from '@lib/reporting/node/next-hooks';
import { whenAnswered } from '@lib/reporting/node/answered-status';
import { reportServerError } from '@lib/reporting/node/reporter';
import { referenceFor } from '@lib/reporting/node/request-reference';

jest.mock('@lib/reporting/node/reporter', () => ({
  initServerReporting: jest.fn(),
  reportServerError: jest.fn(() => 'ref-1'),
}));
jest.mock('@lib/reporting/node/answered-status', () => ({ whenAnswered: jest.fn() }));

const request = { path: '/api/orders/7?x=1', method: 'POST', headers: {} };
const reported = () => (reportServerError as jest.Mock).mock.calls.map(([, context]) => context as object);

afterEach(() => jest.clearAllMocks());

it('reports a page’s error at once, as a 500', async () => {
  await reportRequestError(new Error('x'), request, {
    routerKind: 'Pages Router',
    routePath: '/orders/[id]',
    routeType: 'render',
    renderSource: undefined,
  } as never);
  expect(whenAnswered).not.toHaveBeenCalled();
  expect(reported()).toEqual([
    {
      route: '/orders/[id]',
      method: 'POST',
      status: 500,
      path: '/api/orders/7?x=1',
      mechanism: 'onRequestError:render',
    },
  ]);
});

it('leaves an API route’s error to the status it is answered with, when that can be known', async () => {
  (whenAnswered as jest.Mock).mockImplementation((_headers, report: (status: number) => void) => {
    report(400);
    return true;
  });
  await reportRequestError(new Error('x'), request, {
    routerKind: 'Pages Router',
    routePath: '/api/orders/[id]',
    routeType: 'route',
  } as never);
  expect(reported()).toEqual([expect.objectContaining({ status: 400, mechanism: 'onRequestError:route' })]);
});

it('reports an API route’s error as a 500 when its answer cannot be known', async () => {
  (whenAnswered as jest.Mock).mockReturnValue(false);
  await reportRequestError(new Error('x'), request, {
    routerKind: 'Pages Router',
    routePath: '/api/orders/[id]',
    routeType: 'route',
  } as never);
  expect(reported()).toEqual([expect.objectContaining({ status: 500 })]);
});

it('files each reference under its request, for the request’s log line (lib/server/observe-requests.ts)', async () => {
  const page = { ...request, headers: {} };
  const api = { ...request, headers: {} };
  (whenAnswered as jest.Mock).mockImplementation((_headers, report: (status: number) => void) => {
    report(503);
    return true;
  });
  (reportServerError as jest.Mock).mockReturnValueOnce('ref-page').mockReturnValueOnce('ref-api');
  await reportRequestError(new Error('x'), page, { routePath: '/orders', routeType: 'render' } as never);
  await reportRequestError(new Error('x'), api, { routePath: '/api/orders', routeType: 'route' } as never);
  expect([referenceFor(page.headers), referenceFor(api.headers)]).toEqual(['ref-page', 'ref-api']);
});
