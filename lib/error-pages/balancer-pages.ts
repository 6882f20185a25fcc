// The pages a load balancer answers with when no instance of the app can (every one down, restarting
// or too slow): the shell's "unavailable" screen instead of the balancer's bare "503 Service
// Unavailable". `npm run build` writes them (scripts/error-pages.ts); docs/unavailable-screens.md
// shows HAProxy and ingress-nginx serving them.

/** The statuses a balancer makes itself: a bad answer, no instance to ask, an instance too slow. */
export const BALANCER_STATUSES = [502, 503, 504] as const;
export type BalancerStatus = (typeof BALANCER_STATUSES)[number];

const REASONS: Record<BalancerStatus, string> = {
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * HAProxy answers with an errorfile as it is, and refuses one larger than a buffer (tune.bufsize,
 * 16 KiB by default, less the 1 KiB it keeps for rewrites): bigger pages fail the build instead.
 */
export const ERRORFILE_MAX_BYTES = 15 * 1024;

/** How long a visitor's browser waits before asking again, and what Retry-After says. */
export const RETRY_SECONDS = 5;

/**
 * A whole HTTP answer, as HAProxy's `errorfile` wants it. `no-store`: nothing may keep an outage's
 * answer for the page it stood in for, neither the browser nor a cache between.
 */
export function haproxyErrorFile(status: BalancerStatus, html: string): string {
  const head = [
    `HTTP/1.1 ${status} ${REASONS[status]}`,
    'Content-Type: text/html; charset=utf-8',
    'Cache-Control: no-store',
    `Retry-After: ${RETRY_SECONDS}`,
    `Content-Length: ${Buffer.byteLength(html)}`,
    'Connection: close',
  ];
  const answer = `${head.join('\r\n')}\r\n\r\n${html}`;
  if (Buffer.byteLength(answer) > ERRORFILE_MAX_BYTES)
    throw new Error(
      `The ${status} page is ${Buffer.byteLength(answer)} bytes; HAProxy takes at most ${ERRORFILE_MAX_BYTES}.`,
    );
  return answer;
}

/**
 * HAProxy lines (for a `frontend`) that answer a visitor, while every instance of `backend` is down,
 * with the unavailable page in their first language, when the build offers it
 * (`<folder>/<language>/503.http`); the `errorfile` lines answer everyone else in the default
 * language. HAProxy cannot weigh a header's ranges as the app does (lib/language/negotiate.ts):
 * it looks at the first one only, which is the visitor's first choice in every browser.
 */
export function haproxyLanguageRules(
  folder: string,
  languages: readonly string[],
  backend = 'app',
): string[] {
  return [
    `  acl every_instance_down nbsrv(${backend}) eq 0`,
    ...languages.map(
      (language) =>
        `  http-request return errorfile ${folder}/${language}/503.http if every_instance_down { req.fhdr(accept-language) -m reg -i ^\\s*${language}([-;,\\s]|$) }`,
    ),
  ];
}
