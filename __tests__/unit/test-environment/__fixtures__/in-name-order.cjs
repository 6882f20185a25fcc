// Runs the fixture files in the order of their names, so that which file runs after which is known.
module.exports = class InNameOrder {
  /** @param {Array<{ path: string }>} tests */
  sort(tests) {
    return [...tests].sort((a, b) => a.path.localeCompare(b.path));
  }

  cacheResults() {}
};
