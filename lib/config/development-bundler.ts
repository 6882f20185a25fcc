// Which bundler `npm run dev` compiles with, and what Turbopack must be told to compile this app.
// Turbopack, as bare `next dev` uses, unless the session needs what only next.config.ts's webpack()
// hook gives; the production build is webpack's always (docs/webpack-build.md). docs/development.md
// has the table of what the hook does in development and what stands for it under Turbopack.
import { realpathSync } from 'node:fs';
import path from 'node:path';

/** What a development session asks for that decides its bundler. */
export interface DevelopmentNeeds {
  /** Reports from development (SENTRY_IN_DEVELOPMENT=1 with a DSN). */
  reporting: boolean;
  /** The end-to-end tests' fixture pages (APP_SHELL_FIXTURES=1). */
  fixtures: boolean;
  /** `npm run dev -- --webpack`: production's bundler, asked for by name. */
  askedForWebpack: boolean;
}

export type DevelopmentBundler = { name: 'turbopack' } | { name: 'webpack'; reason: string };

export function developmentBundler(needs: DevelopmentNeeds): DevelopmentBundler {
  if (needs.askedForWebpack) return { name: 'webpack', reason: 'asked for with --webpack' };
  // Turbopack has no entries of an app's own: the browser's SDK files are webpack entries
  // (next.config.ts), loaded by a script element, and the tracing file's copy of Sentry is a
  // webpack layer of its own.
  if (needs.reporting)
    return {
      name: 'webpack',
      reason:
        "SENTRY_IN_DEVELOPMENT=1 reports from development, and the browser's SDK files are webpack entries",
    };
  // The fixture builds swap a module by its resolved path (NormalModuleReplacementPlugin), which
  // Turbopack's aliases, matched against import requests, cannot do.
  if (needs.fixtures)
    return {
      name: 'webpack',
      reason: "APP_SHELL_FIXTURES=1: the fixture builds' module replacement is a webpack plugin",
    };
  return { name: 'turbopack' };
}

/** The one line a development server on webpack says why, for the terminal it runs in. */
export function webpackInDevelopmentLine(reason: string): string {
  return `npm run dev compiles with webpack, not Turbopack: ${reason} (docs/development.md).`;
}

/**
 * The folder Turbopack may read files under, when the project's node_modules resolves outside the
 * project (a git worktree or a test's copy sharing another checkout's install): the nearest folder
 * holding both. Turbopack compiles nothing outside its root, and by default takes the folder of the
 * nearest lockfile, the project's own, where `next` itself is then out of reach. Undefined where
 * node_modules is inside the project (or missing), so a clean checkout, and a workspace whose
 * install is above it, keep Next's own choice.
 */
export function turbopackRoot(
  projectDir: string,
  realpath: (file: string) => string = realpathSync,
): string | undefined {
  let modules: string;
  try {
    modules = realpath(path.join(projectDir, 'node_modules'));
  } catch {
    return undefined;
  }
  const project = path.resolve(projectDir);
  if (isInside(modules, project)) return undefined;
  let root = project;
  while (!isInside(modules, root)) root = path.dirname(root);
  return root;
}

/** (On another drive, which Windows gives as an absolute relative path, nothing holds both: Next chooses.) */
function isInside(file: string, folder: string): boolean {
  const relative = path.relative(folder, file);
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}

/**
 * What next.config.ts adds under Turbopack in development: the root above, and the two values the
 * webpack() hook defines for the reporter. Turbopack runs only without reports from development
 * (developmentBundler above), where there is no SDK file to load: both are ''. (Sentry's
 * tree-shaking flags need no stand-in: without reports no Sentry code reaches the browser.)
 */
export function turbopackInDevelopment(projectDir: string): {
  turbopack: { root?: string };
  compiler: { define: Record<string, string> };
} {
  const root = turbopackRoot(projectDir);
  return {
    turbopack: root ? { root } : {},
    // Values, not code as webpack's DefinePlugin takes: Next serializes them itself.
    compiler: { define: { 'process.env.APP_SENTRY_SDK_URL': '', 'process.env.APP_SENTRY_TRACING_URL': '' } },
  };
}
