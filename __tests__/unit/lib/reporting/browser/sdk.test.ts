/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
// The lazily loaded SDK in a page (jsdom): the client it starts, what each capture carries, and the
// route a report names, matched as Next's client router matches it. Events are caught as the
// client hands them to its transport, so nothing leaves the test.
import { getClient, type BrowserClient } from '@sentry/react';
import type { Event } from '@sentry/core';
import { routeName, startSdk } from '@lib/reporting/browser/sdk';

const DSN = 'https://publickey@o1.ingest.example/7';
const saved = { ...process.env };

type NextWindow = Window & {
  next?: { router?: { pathname?: string } };
  __BUILD_MANIFEST?: { sortedPages?: string[] };
};
const page = window as NextWindow;

/** The events the client would send, as they would leave it (after its event processors). */
function sentEvents(client: BrowserClient): Event[] {
  const sent: Event[] = [];
  client.on('beforeSendEvent', (event) => void sent.push(event));
  return sent;
}

beforeEach(() => {
  Object.assign(process.env, {
    APP_SENTRY_DSN: DSN,
    APP_RELEASE: 'r1',
    APP_SENTRY_ENVIRONMENT: 'staging',
    APP_SENTRY_TUNNEL_PATH: '/t7q2x',
  });
  page.__BUILD_MANIFEST = {
    sortedPages: ['/', '/orders', '/orders/[id]', '/reset/[token]', '/_app', '/_error'],
  };
  delete page.next;
  window.history.replaceState(null, '', '/orders/42?token=abc');
});
afterEach(() => {
  process.env = { ...saved };
  delete page.__BUILD_MANIFEST;
  delete page.next;
});

describe('the client it starts', () => {
  it('reports to the build’s DSN through the tunnel, with the release and environment, and no client reports', () => {
    startSdk();
    const options = (getClient() as BrowserClient).getOptions();
    expect(options).toMatchObject({
      dsn: DSN,
      tunnel: '/t7q2x',
      release: 'r1',
      environment: 'staging',
      sendClientReports: false,
      traceLifecycle: 'static',
    });
    expect(options.tracesSampleRate).toBeUndefined();
    expect(options.integrations.map((integration) => integration.name)).toEqual([
      'EventFilters',
      'Breadcrumbs',
      'LinkedErrors',
      'Dedupe',
      'BrowserSession',
    ]);
  });

  it('ignores ResizeObserver’s loop notices and errors from browser extensions', () => {
    startSdk();
    const { ignoreErrors = [], denyUrls = [] } = (getClient() as BrowserClient).getOptions();
    const ignored = (message: string) => ignoreErrors.some((pattern) => (pattern as RegExp).test(message));
    const denied = (url: string) => denyUrls.some((pattern) => (pattern as RegExp).test(url));
    expect(ignored('ResizeObserver loop limit exceeded')).toBe(true);
    expect(ignored('ResizeObserver loop completed with undelivered notifications')).toBe(true);
    expect(ignored('TypeError: x is undefined')).toBe(false);
    for (const url of [
      'chrome-extension://abc/content.js',
      'moz-extension://abc/content.js',
      'safari-web-extension://abc/x.js',
      'webkit-masked-url://hidden/',
    ])
      expect(denied(url)).toBe(true);
    expect(denied('https://shop.example/_next/static/chunks/main.js')).toBe(false);
    expect(denied('https://chrome-extension.example/x.js')).toBe(false);
    // Only at the start: a page's own URL that names one is no extension's.
    expect(denied('https://shop.example/?from=chrome-extension://abc')).toBe(false);
    expect(denied('https://shop.example/webkit-masked-url://hidden/')).toBe(false);
  });

  it('takes a tracing file’s rate and integrations when given', () => {
    const extra = { name: 'Extra', setupOnce: () => {} };
    startSdk({ tracesSampleRate: 1, integrations: [extra] });
    const options = (getClient() as BrowserClient).getOptions();
    expect(options.tracesSampleRate).toBe(1);
    expect(options.integrations.map((integration) => integration.name)).toContain('Extra');
  });
});

describe('what a capture carries', () => {
  it('its id, mechanism (handled only for the boundary), short reference and route, and the page', async () => {
    const sdk = startSdk();
    const sent = sentEvents(getClient() as BrowserClient);
    const id = '0a1b2c3d'.repeat(4);
    sdk.capture(new Error('boom'), id, 'onerror');
    sdk.capture(new Error('caught'), '1b2c3d4e'.repeat(4), 'react-error-boundary');
    await (getClient() as BrowserClient).flush(1000);
    expect(sent).toHaveLength(2);
    const [uncaught, caught] = sent as [Event, Event];
    expect(uncaught.event_id).toBe(id);
    expect(uncaught.exception?.values?.[0]?.mechanism).toMatchObject({ type: 'onerror', handled: false });
    expect(caught.exception?.values?.[0]?.mechanism).toMatchObject({
      type: 'react-error-boundary',
      handled: true,
    });
    expect(uncaught.tags).toMatchObject({
      mechanism: 'onerror',
      reference: '0A1B2C3D',
      route: '/orders/[id]',
    });
    expect(uncaught.request?.url).toBe('http://localhost/orders/[id]?token=[Filtered]');
    expect(uncaught.request?.headers?.['User-Agent']).toBe(navigator.userAgent);
  });

  it('the clicks and navigations before it, by route, and no note of earlier reports', async () => {
    const sdk = startSdk();
    const sent = sentEvents(getClient() as BrowserClient);
    const button = document.createElement('button');
    button.textContent = 'Pay';
    document.body.append(button);
    try {
      button.click();
      window.history.pushState(null, '', '/orders/43');
      // Refused at once by jsdom (nothing listens here); the request is noted all the same.
      await new Promise<void>((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('GET', 'http://127.0.0.1:9/api/orders');
        xhr.onloadend = () => resolve();
        xhr.send();
      });
      sdk.capture(new Error('first'), '2c3d4e5f'.repeat(4), 'onerror');
      sdk.capture(new Error('second'), '3d4e5f6a'.repeat(4), 'onerror');
      await (getClient() as BrowserClient).flush(1000);
      const categories = (sent[1]?.breadcrumbs ?? []).map((crumb) => crumb.category);
      expect(categories).toEqual(expect.arrayContaining(['ui.click', 'navigation', 'xhr']));
      expect(categories).not.toContain('sentry.event');
      const navigation = sent[1]!.breadcrumbs!.filter((crumb) => crumb.category === 'navigation').at(-1);
      expect(navigation?.data).toMatchObject({ from: '/orders/[id]?token=[Filtered]', to: '/orders/[id]' });
    } finally {
      button.remove();
    }
  });

  it('a new session for each client-side navigation, not only each page load', () => {
    startSdk();
    const items: string[] = [];
    (getClient() as BrowserClient).on('beforeEnvelope', (envelope) => {
      for (const [header] of envelope[1]) items.push(header.type);
    });
    window.history.pushState(null, '', '/orders/44');
    expect(items).toContain('session');
  });

  it('never throws, whatever it is handed', () => {
    const sdk = startSdk();
    jest.spyOn(getClient() as BrowserClient, 'captureException').mockImplementation(() => {
      throw new Error('client broke');
    });
    expect(() => sdk.capture(new Error('x'), 'f'.repeat(32), 'onerror')).not.toThrow();
  });
});

describe('the route a page is named by', () => {
  it('is the pattern of the path in the address bar, a static page as it is', () => {
    expect(routeName()).toBe('/orders/[id]');
    window.history.replaceState(null, '', '/orders');
    expect(routeName()).toBe('/orders');
  });

  it('is what Next shows when no route matches the path, else its 404', () => {
    window.history.replaceState(null, '', '/nowhere/at/all');
    expect(routeName()).toBe('/404');
    page.next = { router: { pathname: '/_error' } };
    expect(routeName()).toBe('/_error');
  });

  it('is the 404 without a build manifest (a page Next has not booted yet)', () => {
    delete page.__BUILD_MANIFEST;
    expect(routeName()).toBe('/404');
  });
});
