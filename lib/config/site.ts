// What the error screens say about the service. Set at build time (see next.config.js and the
// README); inlined into the bundles, so unset values cost nothing.

export interface SiteConfig {
  /** Shown in every <title>, after the screen's heading. */
  serviceName: string;
  /**
   * A page that exists. Unset while the product page set is empty: a "home" link to `/` would
   * lead to another "Page not found".
   */
  homeHref: string | null;
  /** Where people can get help, if anywhere. */
  contact: { href: string; label: string } | null;
}

export const site: SiteConfig = {
  serviceName: process.env.APP_SERVICE_NAME || 'This service',
  homeHref: process.env.APP_HOME_HREF || null,
  contact: process.env.APP_CONTACT_HREF
    ? { href: process.env.APP_CONTACT_HREF, label: process.env.APP_CONTACT_LABEL || 'contact us' }
    : null,
};
