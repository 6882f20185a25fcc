// The development loop's figures (./dev-loop.js measures them): each kind of sample's median for
// this app's `npm run dev` and for bare `next dev`, their ratio, and the aim each is held to.
const { median } = require('./median.js');

/**
 * How far behind bare `next dev` this app may be from `npm run dev` to the first product page (a
 * first start with nothing built, and a restart) and in a hot reload.
 */
const AIM = 1.3;

/**
 * @typedef {object} Samples  milliseconds, one entry per sample
 * @property {number[]} firstStart  a start with nothing built, to the page's first 200
 * @property {number[]} restart  a start with what the one before left, to the page's first 200
 * @property {number[]} hotReload  an edit of the page's file, to the new words in the same document
 */

/** @type {{ key: keyof Samples, name: string }[]} */
const KINDS = [
  { key: 'firstStart', name: 'first start (nothing built) to the page’s first 200' },
  { key: 'restart', name: 'restart to the page’s first 200' },
  { key: 'hotReload', name: 'hot reload: an edit to the new words in the browser' },
];

/**
 * @typedef {object} Row
 * @property {string} name
 * @property {number} shell  median, ms
 * @property {number} bare  median, ms
 * @property {number} ratio  shell over bare
 * @property {number} samples  of each
 * @property {string} target
 * @property {boolean} met
 */

/**
 * One row per kind of sample, each held to AIM. (A first start compiles the shell's own server, a
 * step bare Next does not have: scripts/compile-dev.js, overlapped with loading Next.)
 * @param {{ shell: Samples, bare: Samples }} samples
 * @returns {Row[]}
 */
function devLoopRows({ shell, bare }) {
  return KINDS.map(({ key, name }) => {
    const ours = median(shell[key]);
    const theirs = median(bare[key]);
    const ratio = ours / theirs;
    return {
      name,
      shell: ours,
      bare: theirs,
      ratio,
      samples: Math.min(shell[key].length, bare[key].length),
      target: `≤ ${AIM} × bare`,
      met: ratio <= AIM,
    };
  });
}

/** @param {Row} row */
function rowLine(row) {
  const ms = (/** @type {number} */ value) => `${Math.round(value).toLocaleString('en')} ms`;
  const aim = `, ${row.target}: ${row.met ? 'met' : 'MISSED'}`;
  return `${row.name}: ${ms(row.shell)} against bare next dev's ${ms(row.bare)}, ${row.ratio.toFixed(2)}× (median of ${row.samples}${aim})`;
}

module.exports = { AIM, KINDS, devLoopRows, rowLine };
