// NEXT_TRACES: `next build` writes its file traces unless told the build is served with `npm start`,
// which reads none (docs/configuration.md); the standalone folder is made from them, so it refuses.
// Next's own matcher for the traces' exclusions, as its tracer applies them.
import { makeIgnoreFn } from 'next/dist/build/collect-build-traces';
import { nextConfigWith } from '../../support/next-config';

describe('next.config and NEXT_TRACES', () => {
  it('traces by default and with on: nothing is excluded', () => {
    expect(nextConfigWith({ NEXT_TRACES: undefined }).outputFileTracingExcludes).toBeUndefined();
    expect(nextConfigWith({ NEXT_TRACES: 'on' }).outputFileTracingExcludes).toBeUndefined();
    expect(
      nextConfigWith({ NEXT_TRACES: 'on', NEXT_OUTPUT: 'standalone' }).outputFileTracingExcludes,
    ).toBeUndefined();
  });

  it('with off, excludes every file from the server’s trace and from every page’s', () => {
    const excludes = nextConfigWith({ NEXT_TRACES: 'off' }).outputFileTracingExcludes ?? {};
    const keys = Object.keys(excludes);
    expect(keys).toHaveLength(1);
    const ignored = makeIgnoreFn('/app', excludes[keys[0]!]!);
    for (const file of [
      'node_modules/next/dist/server/next-server.js',
      'node_modules/react-dom/cjs/react-dom-server.node.production.js',
      '.next/server/pages/api/health.js',
      'lib/server/start.ts',
    ])
      expect(ignored(file)).toBe(true);
    // The key is matched against `next-server` and against each page's route, with the options
    // Next gives it (the root `/` only lets every route through to the pattern).
    const ownIgnore = makeIgnoreFn('/', keys);
    for (const entry of ['next-server', '/api/health', '/404', '/_app']) expect(ownIgnore(entry)).toBe(true);
  });

  it('refuses off for the standalone folder, in one line, before building anything', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw new Error(`exit ${code}`);
    }) as typeof process.exit);
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(() => nextConfigWith({ NEXT_TRACES: 'off', NEXT_OUTPUT: 'standalone' })).toThrow('exit 1');
      expect(error).toHaveBeenCalledWith(
        'Invalid build configuration: NEXT_TRACES=off cannot build NEXT_OUTPUT=standalone, which is made from the traces.',
      );
      expect(() => nextConfigWith({ NEXT_TRACES: 'sometimes' })).toThrow('exit 1');
      expect(error).toHaveBeenLastCalledWith(expect.stringContaining('NEXT_TRACES'));
    } finally {
      exit.mockRestore();
      error.mockRestore();
    }
  });
});
