// Removes what must never reach the error-reporting service: secret-looking URL parameters,
// e-mail addresses, cookies, request headers other than the user agent, IP addresses. Used on
// browser and server events alike. Nothing here throws.
import type { Breadcrumb, Event } from '@sentry/core';

export const FILTERED = '[Filtered]';

/** Parameter names whose values are treated as secret. Over-matching is the safe direction. */
const SECRET_NAME =
  /token|code|key|secret|passw|pwd|session|sid|auth|jwt|bearer|signature|sig|credential|otp|email|e-mail|mail|ticket|nonce|state|access|refresh|cookie/i;
const EMAIL = /[^\s@/?#&=:;,"'<>()[\]]+(?:@|%40)[^\s@/?#&=:;,"'<>()[\]]+\.[a-z]{2,}/gi;

export function scrubText(text: string): string {
  return text.replace(EMAIL, FILTERED);
}

/** `a=1&token=x` → `a=1&token=[Filtered]`; keeps the order and the form of everything else. */
function scrubParams(params: string): string {
  return params
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return scrubText(pair);
      const name = pair.slice(0, equals);
      let decodedName = name;
      try {
        decodedName = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a malformed name is kept as it is, and still checked
      }
      if (SECRET_NAME.test(decodedName)) return `${name}=${FILTERED}`;
      return `${name}=${scrubText(pair.slice(equals + 1))}`;
    })
    .join('&');
}

/** Scrubs the query string and the fragment of a URL (absolute or relative). */
export function scrubUrl(url: string): string {
  try {
    const hashAt = url.indexOf('#');
    const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
    const fragment = hashAt === -1 ? undefined : url.slice(hashAt + 1);
    const queryAt = beforeHash.indexOf('?');
    const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
    const query = queryAt === -1 ? undefined : beforeHash.slice(queryAt + 1);
    let out = scrubText(base);
    if (query !== undefined) out += `?${scrubParams(query)}`;
    // A fragment is either parameters (OAuth's #access_token=…) or a plain anchor.
    if (fragment !== undefined)
      out += `#${fragment.includes('=') ? scrubParams(fragment) : scrubText(fragment)}`;
    return out;
  } catch {
    return FILTERED;
  }
}

function scrubBreadcrumb(crumb: Breadcrumb): Breadcrumb {
  const data = crumb.data ? { ...crumb.data } : undefined;
  if (data) {
    for (const field of ['url', 'from', 'to']) {
      if (typeof data[field] === 'string') data[field] = scrubUrl(data[field]);
    }
  }
  return {
    ...crumb,
    ...(typeof crumb.message === 'string' ? { message: scrubUrl(crumb.message) } : {}),
    ...(data ? { data } : {}),
  };
}

/** Headers an event may keep: the user agent only. */
function keepUserAgent(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'user-agent');
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export function scrubEvent<E extends Event>(event: E): E {
  try {
    const out: E = { ...event };
    if (out.request) {
      // Allow-list: cookies, bodies and the server's environment never leave.
      const { url, method, query_string: query, headers } = out.request;
      out.request = {
        ...(method ? { method } : {}),
        ...(url ? { url: scrubUrl(url) } : {}),
        ...(typeof query === 'string' ? { query_string: scrubParams(query) } : {}),
        ...(keepUserAgent(headers) ? { headers: keepUserAgent(headers) } : {}),
      };
    }
    if (out.user) {
      // Never an IP address or anything else that identifies a person.
      delete out.user;
    }
    if (out.breadcrumbs) out.breadcrumbs = out.breadcrumbs.map(scrubBreadcrumb);
    if (out.message) out.message = scrubText(out.message);
    if (out.exception?.values) {
      out.exception = {
        ...out.exception,
        values: out.exception.values.map((value) => ({
          ...value,
          ...(value.value ? { value: scrubText(value.value) } : {}),
        })),
      };
    }
    if (out.tags) {
      out.tags = Object.fromEntries(
        Object.entries(out.tags).map(([name, value]) => [
          name,
          typeof value === 'string' ? scrubUrl(value) : value,
        ]),
      );
    }
    return out;
  } catch {
    // If scrubbing fails, send less rather than risk sending a secret.
    return { event_id: event.event_id, level: event.level, message: 'Event dropped by the scrubber' } as E;
  }
}

export function scrubBreadcrumbOrDrop(crumb: Breadcrumb): Breadcrumb | null {
  try {
    // Console breadcrumbs can carry anything a developer logged.
    if (crumb.category === 'console') return null;
    return scrubBreadcrumb(crumb);
  } catch {
    return null;
  }
}
