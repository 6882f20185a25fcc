// Next's instrumentation hook: starts server-side error reporting and hands it every request error.
// The logic lives in lib/reporting/node/next-hooks.ts.
//
// `npm run dev` compiles this file for the edge runtime too (Next's dev server always does; the
// production build drops that copy when no route runs on the edge), and an edge bundle cannot hold
// `node:` modules: one import of the server's reporting there fails the compile, and the dev server
// then answers 500 to every page. Webpack leaves out an `if` branch whose condition it folds to
// false, but not the code after an early `return`; so each import of server code stays inside
// `if (process.env.NEXT_RUNTIME === 'nodejs')`. __tests__/unit/architecture/ checks it.
import type { Instrumentation } from 'next';

export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { registerServerReporting } = await import('./lib/reporting/node/next-hooks');
    await registerServerReporting();
  }
}

export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { reportRequestError } = await import('./lib/reporting/node/next-hooks');
    await reportRequestError(error, request, context);
  }
};
