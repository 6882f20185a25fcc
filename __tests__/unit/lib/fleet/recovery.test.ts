/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
import type * as Recovery from '@lib/fleet/recovery';

type Runtime = { e?: (chunkId: string | number) => Promise<unknown> };
const global = globalThis as unknown as { __webpack_require__?: Runtime };

let recovery: typeof Recovery;
let reload: jest.Mock;
let beacon: jest.Mock;

/** The module as a new document loads it: whether the page is reloading is its state. */
function loadRecovery() {
  // require(), not import: each document gets its own copy, inside isolateModules.
  jest.isolateModules(() => {
    recovery = require('@lib/fleet/recovery') as typeof Recovery; // eslint-disable-line @typescript-eslint/no-require-imports
  });
  recovery.pageActions.reload = reload;
  recovery.pageActions.beacon = beacon;
}

beforeEach(() => {
  sessionStorage.clear();
  reload = jest.fn();
  beacon = jest.fn(() => true);
  loadRecovery();
});
afterEach(() => {
  delete global.__webpack_require__;
  jest.useRealTimers();
});

function chunkLoadError(): Error {
  const error = new Error(
    'Loading chunk 3 failed.\n(missing: http://localhost/_next/static/chunks/3.abc.js)',
  );
  error.name = 'ChunkLoadError';
  return error;
}

describe('a lost build file', () => {
  it("is webpack's ChunkLoadError or mini-css-extract's style chunk error, nothing else", () => {
    expect(recovery.isLostAsset(chunkLoadError())).toBe(true);
    expect(recovery.isLostAsset(Object.assign(new Error('css'), { code: 'CSS_CHUNK_LOAD_FAILED' }))).toBe(
      true,
    );
    expect(recovery.isLostAsset(new Error('Loading chunk 3 failed.'))).toBe(false);
    expect(recovery.isLostAsset(null)).toBe(false);
    expect(recovery.isLostAsset('ChunkLoadError')).toBe(false);
  });

  it('reloads the page once and says so', () => {
    recovery.recoverFromLostFile();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(beacon).toHaveBeenCalledWith('/_next/app-shell/lost-file');
  });

  it('reloads once however many files the page loses before it has reloaded', () => {
    recovery.recoverFromLostFile();
    recovery.recoverFromLostFile();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(beacon).toHaveBeenCalledTimes(1);
  });

  it('does not reload again in a tab that reloaded for a lost file less than 30 s ago: no loop', () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-25T12:00:00Z') });
    recovery.recoverFromLostFile();
    // The reloaded page: a new document, the same tab.
    loadRecovery();
    jest.advanceTimersByTime(recovery.RELOAD_AGAIN_AFTER_MS - 1000);
    recovery.recoverFromLostFile();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(beacon).toHaveBeenCalledTimes(1);
    jest.advanceTimersByTime(2000);
    recovery.recoverFromLostFile();
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it('reloads again exactly 30 s after the last reload', () => {
    jest.useFakeTimers({ now: Date.parse('2026-11-25T12:00:00Z') });
    recovery.recoverFromLostFile();
    loadRecovery();
    jest.advanceTimersByTime(recovery.RELOAD_AGAIN_AFTER_MS);
    recovery.recoverFromLostFile();
    expect(reload).toHaveBeenCalledTimes(2);
  });

  it('keeps its mark in the tab under a name of the shell’s own, beside the product’s', () => {
    sessionStorage.setItem('', 'the product’s');
    recovery.recoverFromLostFile();
    expect(sessionStorage.getItem('')).toBe('the product’s');
    expect(Object.keys(sessionStorage).filter((key) => key !== '')).toEqual([
      expect.stringMatching(/^app-shell:/),
    ]);
  });

  it('does not reload, and does not throw, where the tab has no storage', () => {
    jest.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new Error('SecurityError');
    });
    expect(() => recovery.recoverFromLostFile()).not.toThrow();
    expect(reload).not.toHaveBeenCalled();
    jest.restoreAllMocks();
  });
});

describe("watching webpack's chunk loader", () => {
  it('reloads when a lazy part fails to load, and the loader still rejects as before', async () => {
    const failed = chunkLoadError();
    const runtime: Runtime = { e: jest.fn(() => Promise.reject(failed)) };
    global.__webpack_require__ = runtime;
    recovery.recoverLostAssets();
    await expect(runtime.e!(3)).rejects.toBe(failed);
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('leaves other failures and loaded chunks alone', async () => {
    const loaded = { id: 3 };
    const load = jest.fn((chunkId: string | number) =>
      chunkId === 3 ? Promise.resolve(loaded) : Promise.reject(new Error('a module threw')),
    );
    global.__webpack_require__ = { e: load };
    recovery.recoverLostAssets();
    await expect(global.__webpack_require__.e!(3)).resolves.toBe(loaded);
    await expect(global.__webpack_require__.e!(4)).rejects.toThrow('a module threw');
    expect(load).toHaveBeenCalledTimes(2);
    expect(reload).not.toHaveBeenCalled();
  });

  it('does nothing outside a webpack bundle', () => {
    expect(() => recovery.recoverLostAssets()).not.toThrow();
  });
});
