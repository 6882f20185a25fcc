// What a request line's target is, before Next sees it. Next assumes a path ("origin-form"):
// `OPTIONS *` makes it throw (a 500), and an absolute-form target (`GET http://evil.example/`)
// gets a redirect to that host.

/**
 * @typedef {{ kind: 'path', path: string } | { kind: 'asterisk' } | { kind: 'invalid' }} RequestTarget
 */

/**
 * @param {string | undefined} target  `req.url`, as Node received it
 * @returns {RequestTarget}
 */
function parseRequestTarget(target) {
  if (typeof target !== 'string' || target === '') return { kind: 'invalid' };
  if (target.startsWith('/')) return { kind: 'path', path: target };
  if (target === '*') return { kind: 'asterisk' };
  // RFC 9112 §3.2.2: a server must accept absolute-form. This app serves one site, so only the path
  // and query count; the authority is dropped rather than echoed into a redirect.
  const absolute = target.match(/^https?:\/\/[^/?#]*(.*)$/i);
  if (absolute) {
    const rest = absolute[1] ?? '';
    return { kind: 'path', path: rest.startsWith('/') ? rest : `/${rest}` };
  }
  return { kind: 'invalid' };
}

module.exports = { parseRequestTarget };
