// What the error screens say about the service: NEXT_PUBLIC_SERVICE_NAME and the rest, read at build
// time (lib/config/variables.ts) and inlined into the bundles, so unset values cost nothing.

export interface SiteConfig {
  /** Shown in every <title>, after the screen's heading. */
  serviceName: string;
  /**
   * A page that exists. Unset while the product page set is empty: a "home" link to `/` would
   * lead to another "Page not found".
   */
  homeHref: string | null;
  /** Where people can get help, if anywhere; without a label, each language's own words. */
  contact: { href: string; label: string | null } | null;
}

// Read here, not through ./build-values.ts: the build replaces each name with its value in this
// module, which webpack folds into the error screens' own code. A module shared with the lazily
// loaded SDK file cannot be folded, and costs every page first-load JS (the e2e budget test fails).
export const site: SiteConfig = {
  serviceName: process.env.APP_SERVICE_NAME || 'This service',
  homeHref: process.env.APP_HOME_HREF || null,
  contact: process.env.APP_CONTACT_HREF
    ? { href: process.env.APP_CONTACT_HREF, label: process.env.APP_CONTACT_LABEL || null }
    : null,
};
