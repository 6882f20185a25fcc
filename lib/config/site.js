// What the error screens say about the service. Product teams edit this file when they add pages.
// Plain CommonJS so next.config.js and the production server can read it without a compiler.

/**
 * @typedef {object} SiteConfig
 * @property {string} serviceName  Shown in every <title>, after the screen's heading.
 * @property {string | null} homeHref  A page that exists. Null while the product page set is empty:
 *   a "home" link to `/` would lead to another "Page not found".
 * @property {{ href: string, label: string } | null} contact  Where people can get help, if anywhere.
 */

/** @type {SiteConfig} */
const site = Object.freeze({
  serviceName: process.env.NEXT_PUBLIC_SERVICE_NAME || 'This service',
  homeHref: process.env.NEXT_PUBLIC_HOME_HREF || null,
  contact: process.env.NEXT_PUBLIC_CONTACT_HREF
    ? {
        href: process.env.NEXT_PUBLIC_CONTACT_HREF,
        label: process.env.NEXT_PUBLIC_CONTACT_LABEL || 'contact us',
      }
    : null,
});

module.exports = { site };
