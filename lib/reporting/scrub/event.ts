// What of an event may leave: the user never, the request by allow-list (method, URL as its route,
// query, user agent), breadcrumbs without console output, and everything else scrubbed whole
// (./deep.ts).
import type { Breadcrumb, Event } from '@sentry/core';
import { scrubDeep } from './deep';
import { asRoute, type ScrubOptions } from './route';
import { scrubParams, scrubUrl } from './text';

/** Headers an event may keep: the user agent only. */
function keepUserAgent(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'user-agent');
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export function scrubEvent<E extends Event>(event: E, options: ScrubOptions = {}): E {
  try {
    const { request, breadcrumbs, ...rest } = event;
    // The user goes whole: never an IP address or anything else that identifies a person.
    delete rest.user;
    const out = scrubDeep(rest, false, new WeakSet(), 0) as E;
    if (request) {
      // Allow-list: cookies, bodies and the server's environment never leave.
      const { url, method, query_string: query, headers } = request;
      const userAgent = keepUserAgent(headers);
      out.request = {
        ...(method ? { method } : {}),
        ...(url ? { url: scrubUrl(asRoute(url, options.routeOf, options.origin)) } : {}),
        ...(typeof query === 'string' ? { query_string: scrubParams(query, 0) } : {}),
        ...(userAgent ? { headers: userAgent } : {}),
      };
    }
    if (breadcrumbs) out.breadcrumbs = breadcrumbs.map((crumb) => scrubBreadcrumb(crumb, options));
    return out;
  } catch {
    // If scrubbing fails, send less rather than risk sending a secret.
    return { event_id: event.event_id, level: event.level, message: 'Event dropped by the scrubber' } as E;
  }
}

function scrubBreadcrumb(crumb: Breadcrumb, options: ScrubOptions): Breadcrumb {
  const data = crumb.data ? { ...crumb.data } : undefined;
  if (data) {
    for (const field of ['url', 'from', 'to']) {
      if (typeof data[field] === 'string')
        data[field] = asRoute(data[field], options.routeOf, options.origin);
    }
  }
  return scrubDeep({ ...crumb, ...(data ? { data } : {}) }, false, new WeakSet(), 0) as Breadcrumb;
}

export function scrubBreadcrumbOrDrop(crumb: Breadcrumb, options: ScrubOptions = {}): Breadcrumb | null {
  try {
    // Console breadcrumbs can carry anything a developer logged.
    if (crumb.category === 'console') return null;
    return scrubBreadcrumb(crumb, options);
  } catch {
    return null;
  }
}
