/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
import { registerServiceWorker } from '@lib/service-worker/register';

let register: jest.Mock;
let readyState: DocumentReadyState;
const saved = process.env.APP_SERVICE_WORKER;

beforeEach(() => {
  register = jest.fn(() => Promise.resolve({}));
  Object.defineProperty(navigator, 'serviceWorker', { value: { register }, configurable: true });
  readyState = 'loading';
  jest.spyOn(document, 'readyState', 'get').mockImplementation(() => readyState);
  process.env.APP_SERVICE_WORKER = '1';
});
afterEach(() => {
  jest.restoreAllMocks();
  process.env.APP_SERVICE_WORKER = saved;
  Reflect.deleteProperty(navigator, 'serviceWorker');
});

it('registers the worker for the whole origin once the page has loaded, not before', () => {
  registerServiceWorker();
  expect(register).not.toHaveBeenCalled();
  window.dispatchEvent(new Event('load'));
  // With the visitor's languages, so the server hands out the worker whose screens are in theirs.
  expect(register).toHaveBeenCalledWith('/_next/app-shell/worker.js?languages=en-US,en', { scope: '/' });
});

it('registers at once on a page that has already loaded', () => {
  readyState = 'complete';
  registerServiceWorker();
  expect(register).toHaveBeenCalledTimes(1);
});

it('registers nothing in a build without it (SERVICE_WORKER=off, npm run dev)', () => {
  process.env.APP_SERVICE_WORKER = '';
  readyState = 'complete';
  registerServiceWorker();
  expect(register).not.toHaveBeenCalled();
});

it('does nothing where the browser has no workers (an insecure origin), and never throws', () => {
  Reflect.deleteProperty(navigator, 'serviceWorker');
  readyState = 'complete';
  expect(() => registerServiceWorker()).not.toThrow();
});

it('swallows a refused registration: no unhandled rejection for the reporter to send', async () => {
  const refused = Promise.reject(new DOMException('The operation is insecure.', 'SecurityError'));
  register.mockReturnValue(refused);
  const unhandled = jest.fn();
  process.on('unhandledRejection', unhandled);
  readyState = 'complete';
  registerServiceWorker();
  await new Promise((resolve) => setTimeout(resolve, 10));
  process.off('unhandledRejection', unhandled);
  expect(unhandled).not.toHaveBeenCalled();
});
