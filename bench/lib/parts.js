// Which parts of `npm run bench` to run: those named after the command (`npm run bench -- dev`)
// and in BENCH_ONLY (`BENCH_ONLY=observability,tunnel`), or every part when neither names any.

/**
 * @param {string[]} args  the command's arguments
 * @param {string | undefined} only  BENCH_ONLY, comma-separated
 * @returns {string[] | undefined}  undefined: every part
 */
function partsAsked(args, only) {
  const named = [...args, ...(only ?? '').split(',')].map((name) => name.trim()).filter(Boolean);
  return named.length > 0 ? named : undefined;
}

module.exports = { partsAsked };
