// What a request line's target is, before Next sees it. Next assumes a path ("origin-form"):
// `OPTIONS *` makes it throw (a 500), and an absolute-form target (`GET http://evil.example/`)
// gets a redirect to that host.

export type RequestTarget = { kind: 'path'; path: string } | { kind: 'asterisk' } | { kind: 'invalid' };

/** @param target `req.url`, as Node received it */
export function parseRequestTarget(target: string | undefined): RequestTarget {
  // (An empty target is none of the forms below.)
  if (typeof target !== 'string') return { kind: 'invalid' };
  if (target.startsWith('/')) return { kind: 'path', path: target };
  if (target === '*') return { kind: 'asterisk' };
  // RFC 9112 §3.2.2: a server must accept absolute-form. This app serves one site, so only the path
  // and query count; the authority is dropped rather than echoed into a redirect.
  const absolute = /^https?:\/\/[^/?#]*(.*)$/i.exec(target);
  if (absolute) {
    const rest = absolute[1] as string; // (.* always matches)
    return { kind: 'path', path: rest.startsWith('/') ? rest : `/${rest}` };
  }
  return { kind: 'invalid' };
}
