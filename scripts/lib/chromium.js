// Debian's Chromium, as the browser tests, Lighthouse and the bench launch it. Playwright cannot
// download its own browsers here; without the background-networking flags Chromium keeps trying
// to reach Google's hosts, which this machine refuses.

const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

module.exports = { CHROMIUM_PATH, CHROMIUM_ARGS };
