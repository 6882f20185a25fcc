// A webpack loader for the reporting file sampled visitors load (next.config.ts): Sentry's code
// there is built with `__SENTRY_TRACING__` true, while the build's DefinePlugin sets it false for
// everything else, so the plain file (errors and sessions, what every visitor loads) keeps none of
// the tracing code that flag guards. DefinePlugin applies to a whole compilation; this rewrites
// the flag in the modules of the tracing file's own webpack layer only. Hand-written because no
// loader does this one replacement: string-replace-loader would be a dependency for one line.

/**
 * @this {unknown}
 * @param {string} source
 * @returns {string}
 */
module.exports = function sentryTracingFlag(source) {
  return source.replaceAll('__SENTRY_TRACING__', 'true');
};
