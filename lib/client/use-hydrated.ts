import { useSyncExternalStore } from 'react';

const subscribe = () => () => {};

/**
 * False in the server-rendered HTML and during hydration, true after. Controls that need JavaScript
 * (go back, copy, reload) render only when it is true, so the page never shows a button that does
 * nothing with JavaScript off.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
