import { comeBack, type ComeBackScope } from '@lib/service-worker/come-back';

const SETTINGS = {
  answerHeader: 'x-app-shell-answer',
  balancerStatuses: [502, 503, 504],
  firstWaitMs: 1000,
  longestWaitMs: 8000,
};
const balancers = (status = 503) => new Response(null, { status });
const ours = (status: number) => new Response(null, { status, headers: { 'x-app-shell-answer': '1' } });

function screen() {
  const waits: number[] = [];
  const online: (() => void)[] = [];
  const network = jest.fn<Promise<Response>, [string, RequestInit?]>();
  const reload = jest.fn();
  const scope: ComeBackScope = {
    addEventListener: (_type, listener) => online.push(listener),
    fetch: network as unknown as typeof fetch,
    location: { href: 'https://shop.example/orders/42', reload },
    setTimeout: (callback, ms) => {
      waits.push(ms);
      return setTimeout(callback, ms);
    },
    clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
  };
  comeBack(scope, SETTINGS);
  return { waits, network, reload, goOnline: () => online.forEach((listener) => listener()) };
}

beforeEach(() => {
  jest.useFakeTimers();
  jest.spyOn(Math, 'random').mockReturnValue(0.5);
});
afterEach(() => {
  jest.useRealTimers();
  jest.restoreAllMocks();
});

/** Lets the timer run out and the probe's answer arrive. */
async function nextAsk(): Promise<void> {
  await jest.advanceTimersToNextTimerAsync();
  await Promise.resolve();
}

it('asks for the page past every cache, with waits of 1, 2, 4 and 8 s, then 8 s, until the app answers; then reloads', async () => {
  const { waits, network, reload } = screen();
  network.mockResolvedValue(balancers());
  for (let ask = 0; ask < 5; ask += 1) await nextAsk();
  expect(waits).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
  expect(network).toHaveBeenCalledTimes(5);
  expect(network).toHaveBeenLastCalledWith('https://shop.example/orders/42', {
    method: 'HEAD',
    cache: 'no-store',
    redirect: 'manual',
  });
  expect(reload).not.toHaveBeenCalled();
  network.mockResolvedValue(ours(200));
  await nextAsk();
  expect(reload).toHaveBeenCalledTimes(1);
});

it('varies each wait by up to a quarter, so visitors who lost the app together do not return together', () => {
  jest.spyOn(Math, 'random').mockReturnValue(0);
  expect(screen().waits).toEqual([750]);
  jest.spyOn(Math, 'random').mockReturnValue(0.999);
  expect(screen().waits).toEqual([1249.5]);
});

it.each([
  ['a failed connection', () => Promise.reject(new TypeError('Failed to fetch'))],
  ['a balancer’s 502', () => Promise.resolve(balancers(502))],
  ['a balancer’s 504', () => Promise.resolve(balancers(504))],
])('keeps waiting after %s', async (_, answer) => {
  const { network, reload, waits } = screen();
  network.mockImplementation(answer);
  await nextAsk();
  await Promise.resolve();
  expect(reload).not.toHaveBeenCalled();
  expect(waits).toEqual([1000, 2000]);
});

it.each([
  ['the page', ours(200)],
  ['the app’s own 503 (it is draining): its screen, not ours, is the answer', ours(503)],
  ['the app’s "Page not found"', ours(404)],
  ['an answer from anything that is not a balancer’s 5xx', balancers(404)],
  ['a redirect', Object.defineProperty(new Response(null), 'type', { value: 'opaqueredirect' })],
])('reloads on %s', async (_, answer) => {
  const { network, reload } = screen();
  network.mockResolvedValue(answer);
  await nextAsk();
  expect(reload).toHaveBeenCalledTimes(1);
});

it('asks at once when the browser is online again, and starts its waits over', async () => {
  const { network, reload, waits, goOnline } = screen();
  network.mockResolvedValue(balancers());
  await nextAsk();
  await nextAsk();
  expect(waits.at(-1)).toBe(4000);
  goOnline();
  await Promise.resolve();
  expect(network).toHaveBeenCalledTimes(3);
  await Promise.resolve();
  expect(waits.at(-1)).toBe(1000);
  network.mockResolvedValue(ours(200));
  goOnline();
  await Promise.resolve();
  await Promise.resolve();
  expect(reload).toHaveBeenCalledTimes(1);
});

it('never asks twice at once', async () => {
  const { network, goOnline } = screen();
  network.mockReturnValue(new Promise(() => {}));
  goOnline();
  goOnline();
  await nextAsk();
  expect(network).toHaveBeenCalledTimes(1);
});
