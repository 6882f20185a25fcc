/**
 * The request's own path if it is a safe same-origin link target, else undefined. A request line
 * may carry an absolute URL or `//host` (which a browser reads as another origin), so only a plain
 * path is echoed back into a link.
 */
export function sameOriginPath(path: string | undefined | null): string | undefined {
  if (typeof path !== 'string' || !path.startsWith('/')) return undefined;
  if (path.startsWith('//') || path.startsWith('/\\')) return undefined;
  // Control characters have no place in a link we render.
  if (/[\u0000-\u001f\u007f]/.test(path)) return undefined;
  return path;
}
