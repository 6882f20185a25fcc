/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
// The first-load reporter in a page (jsdom): the ids it hands out, the buffer it keeps until the SDK
// file arrives, the page's own errors it catches, and which SDK file it asks for. The module reads
// the build's values when it loads, so each test loads it afresh with the values it needs.
import type { LoadedSdk, Mechanism } from '@lib/reporting/browser/types';

type Reporter = typeof import('@lib/reporting/browser/reporter');

const BUILD = {
  APP_SENTRY_SDK_URL: '/_next/static/chunks/reporting-abc.js',
  APP_SENTRY_TRACING_URL: '/_next/static/chunks/reporting-tracing-abc.js',
  APP_SENTRY_TRACES_SAMPLE_RATE: '0',
};
const saved = { ...process.env };

async function load(values: Partial<typeof BUILD> = {}): Promise<Reporter> {
  Object.assign(process.env, BUILD, values);
  let reporter!: Reporter;
  await jest.isolateModulesAsync(async () => {
    reporter = await import('@lib/reporting/browser/reporter');
  });
  return reporter;
}

/** What the SDK file does as it runs: announces its start function. */
function sdkArrives(captured: [unknown, string, Mechanism][], start?: () => LoadedSdk) {
  const detail =
    start ?? (() => ({ capture: (...args: [unknown, string, Mechanism]) => void captured.push(args) }));
  document.dispatchEvent(new CustomEvent('app-shell:sdk-loaded', { detail }));
}

const scripts = () =>
  [...document.head.querySelectorAll('script')].map((script) => script.getAttribute('src'));

/** The page listeners each loaded copy adds, taken off after each test: a copy lives on otherwise. */
let added: [string, EventListenerOrEventListenerObject][] = [];
beforeEach(() => {
  document.head.innerHTML = '';
  jest.useFakeTimers();
  const add = window.addEventListener.bind(window);
  jest.spyOn(window, 'addEventListener').mockImplementation((type, listener, options) => {
    added.push([type, listener as EventListenerOrEventListenerObject]);
    add(type, listener as EventListenerOrEventListenerObject, options);
  });
});
afterEach(() => {
  for (const [type, listener] of added) window.removeEventListener(type, listener);
  added = [];
  process.env = { ...saved };
  jest.useRealTimers();
  jest.restoreAllMocks();
});

describe('reportBrowserError', () => {
  it('does nothing and gives no id when the build had no DSN', async () => {
    const { reportBrowserError } = await load({ APP_SENTRY_SDK_URL: '' });
    expect(reportBrowserError(new Error('x'), 'onerror')).toBeUndefined();
  });

  it('gives an error one id, however often it is reported, and none to a lost build file', async () => {
    const { reportBrowserError } = await load();
    const error = new Error('x');
    const id = reportBrowserError(error, 'react-error-boundary');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(reportBrowserError(error, 'next-error-page')).toBe(id);
    expect(
      reportBrowserError(Object.assign(new Error('gone'), { name: 'ChunkLoadError' }), 'onerror'),
    ).toBeUndefined();
  });

  it('keeps up to 30 errors until the SDK arrives, then hands them over in order, and the next at once', async () => {
    const { reportBrowserError, startBrowserReporting } = await load();
    startBrowserReporting();
    jest.runAllTimers();
    const errors = Array.from({ length: 31 }, (_, i) => new Error(`e${i}`));
    const ids = errors.map((error) => reportBrowserError(error, 'onerror'));
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    const captured: [unknown, string, Mechanism][] = [];
    sdkArrives(captured);
    expect(captured).toHaveLength(30);
    expect(captured[0]).toEqual([errors[0], ids[0], 'onerror']);
    expect(captured[29]![0]).toBe(errors[29]);
    const later = new Error('later');
    const laterId = reportBrowserError(later, 'react-error-boundary');
    expect(captured[30]).toEqual([later, laterId, 'react-error-boundary']);
  });
});

describe('startBrowserReporting', () => {
  it('reports the page’s uncaught errors and rejections, each by its mechanism', async () => {
    const { startBrowserReporting } = await load();
    startBrowserReporting();
    jest.runAllTimers();
    const captured: [unknown, string, Mechanism][] = [];
    sdkArrives(captured);
    const thrown = new Error('uncaught');
    dispatchEvent(new ErrorEvent('error', { error: thrown, message: 'Uncaught Error: uncaught' }));
    dispatchEvent(new ErrorEvent('error', { message: 'Script error.' }));
    const rejection = Object.assign(new Event('unhandledrejection'), { reason: 'rejected' });
    dispatchEvent(rejection);
    expect(captured.map(([error, , mechanism]) => [error, mechanism])).toEqual([
      [thrown, 'onerror'],
      ['Script error.', 'onerror'],
      ['rejected', 'onunhandledrejection'],
    ]);
  });

  it('asks for the SDK file once the page is idle, and not at all without a DSN', async () => {
    const off = await load({ APP_SENTRY_SDK_URL: '' });
    off.startBrowserReporting();
    jest.runAllTimers();
    expect(scripts()).toEqual([]);

    const on = await load();
    on.startBrowserReporting();
    expect(scripts()).toEqual([]);
    jest.runAllTimers();
    expect(scripts()).toEqual([BUILD.APP_SENTRY_SDK_URL]);
  });

  it.each([
    ['a sampled document', 'aaaa-bbbb-1', BUILD.APP_SENTRY_TRACING_URL],
    ['a document not sampled', 'aaaa-bbbb-0', BUILD.APP_SENTRY_SDK_URL],
    ['a document not sampled whose ids hold a -1', 'aa-1a-bb-1b-0', BUILD.APP_SENTRY_SDK_URL],
  ])('asks for the tracing file for %s, as the server decided', async (_name, decision, file) => {
    const meta = document.createElement('meta');
    meta.name = 'sentry-trace';
    meta.content = decision;
    document.head.appendChild(meta);
    const { startBrowserReporting } = await load({ APP_SENTRY_TRACES_SAMPLE_RATE: '0.5' });
    startBrowserReporting();
    jest.runAllTimers();
    expect(scripts()).toEqual([file]);
  });

  it.each([
    [0.49, BUILD.APP_SENTRY_TRACING_URL],
    [0.5, BUILD.APP_SENTRY_SDK_URL],
  ])('draws against the build’s rate without a decision (a draw of %p at 0.5)', async (draw, file) => {
    jest.spyOn(Math, 'random').mockReturnValue(draw);
    const { startBrowserReporting } = await load({ APP_SENTRY_TRACES_SAMPLE_RATE: '0.5' });
    startBrowserReporting();
    jest.runAllTimers();
    expect(scripts()).toEqual([file]);
  });

  it('asks for the SDK file when the browser says it is idle, waiting at most 3 s', async () => {
    const idle = jest.fn((callback: () => void) => {
      callback();
      return 1;
    });
    Object.assign(window, { requestIdleCallback: idle });
    try {
      const { startBrowserReporting } = await load();
      startBrowserReporting();
      jest.runAllTimers();
      expect(idle).toHaveBeenCalledWith(expect.any(Function), { timeout: 3000 });
      expect(scripts()).toEqual([BUILD.APP_SENTRY_SDK_URL]);
    } finally {
      delete (window as { requestIdleCallback?: unknown }).requestIdleCallback;
    }
  });

  it('takes the SDK file’s start once, however often its event comes', async () => {
    const { reportBrowserError, startBrowserReporting } = await load();
    startBrowserReporting();
    jest.runAllTimers();
    const first: [unknown, string, Mechanism][] = [];
    const second: [unknown, string, Mechanism][] = [];
    sdkArrives(first);
    // Another copy of the file, or a page's own event of that name: ignored.
    sdkArrives(second);
    reportBrowserError(new Error('after'), 'onerror');
    expect([first.length, second.length]).toEqual([1, 0]);
  });

  it('never asks for the tracing file when the build traces nothing', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0);
    // Even for a document the server sampled.
    const meta = document.createElement('meta');
    meta.name = 'sentry-trace';
    meta.content = 'aaaa-bbbb-1';
    document.head.appendChild(meta);
    const { startBrowserReporting } = await load();
    startBrowserReporting();
    jest.runAllTimers();
    expect(scripts()).toEqual([BUILD.APP_SENTRY_SDK_URL]);
  });
});
