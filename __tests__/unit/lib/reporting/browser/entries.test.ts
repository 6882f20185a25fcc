/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
// The two SDK files' entry points, as a page loads them: each announces its start function, and
// the tracing one starts the SDK tracing every page load and navigation, named by route.
import { getClient, type BrowserClient } from '@sentry/react';
import type { LoadedSdk } from '../../../../../lib/reporting/browser/types';

const saved = { ...process.env };
beforeEach(() => {
  Object.assign(process.env, {
    APP_SENTRY_DSN: 'https://publickey@o1.ingest.example/7',
    APP_SENTRY_TUNNEL_PATH: '/t7q2x',
  });
});
afterEach(() => {
  process.env = { ...saved };
});

/** Loads an entry file and returns the start function it announced. */
async function announced(load: () => Promise<unknown>): Promise<() => LoadedSdk> {
  let start: (() => LoadedSdk) | undefined;
  const listener = (event: Event) => (start = (event as CustomEvent<() => LoadedSdk>).detail);
  document.addEventListener('app-shell:sdk-loaded', listener);
  await jest.isolateModulesAsync(async () => {
    await load();
  });
  document.removeEventListener('app-shell:sdk-loaded', listener);
  expect(start).toEqual(expect.any(Function));
  return start!;
}

it('the plain file announces an SDK without tracing', async () => {
  const start = await announced(() => import('../../../../../lib/reporting/browser/sdk-entry'));
  expect(start().capture).toEqual(expect.any(Function));
  expect((getClient() as BrowserClient).getOptions().tracesSampleRate).toBeUndefined();
});

it('the tracing file announces an SDK that traces every page it was loaded into, with its scrub hooks', async () => {
  const start = await announced(() => import('../../../../../lib/reporting/browser/tracing-entry'));
  start();
  const options = (getClient() as BrowserClient).getOptions();
  expect(options.tracesSampleRate).toBe(1);
  expect(options.integrations.map((integration) => integration.name)).toContain('BrowserTracing');
  expect(options.beforeSendTransaction).toEqual(expect.any(Function));
  expect(options.beforeSendSpan).toEqual(expect.any(Function));
  const scrubbed = options.beforeSendTransaction!(
    { type: 'transaction', transaction: '/orders/7', user: { email: 'jane@example.com' } } as never,
    {},
  );
  expect(scrubbed).not.toHaveProperty('user');
});
