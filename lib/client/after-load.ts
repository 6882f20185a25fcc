// Work that must not compete with the page's own loading: run once the page has loaded (at once if it
// already has). Shared by the first-load code that defers itself: the reporter and the worker's
// registration, so that the bytes are paid once.
export function afterLoad(callback: () => unknown): void {
  // A document loads once: no need to remove the listener.
  if (document.readyState === 'complete') callback();
  else addEventListener('load', callback);
}
