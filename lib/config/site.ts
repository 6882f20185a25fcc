// What the error screens say about the service: NEXT_PUBLIC_SERVICE_NAME and the rest, read at build
// time (lib/config/variables.ts) and inlined into the bundles, so unset values cost nothing.
import { screenValues } from './build-values';

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

const values = screenValues();

export const site: SiteConfig = {
  serviceName: values.serviceName,
  homeHref: values.homeHref,
  contact: values.contactHref ? { href: values.contactHref, label: values.contactLabel } : null,
};
