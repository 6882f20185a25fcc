// The packages the compiled server needs beyond Next's trace, copied into the standalone folder
// (scripts/assemble-standalone.sh runs the command; the container's test runs the result).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  copyServerDependencies,
  ENTRIES,
  summary,
  traceEntries,
} from '../../../scripts/copy-server-dependencies';
import { folderWith } from '../../support/files';

const folder = (files: Record<string, string> = {}) => folderWith('server-deps-', files);

const p = (...parts: string[]) => path.join(...parts);

describe('copyServerDependencies', () => {
  it("copies each package the trace names and Next's trace lacks, whole as traced, and nothing else", async () => {
    const root = folder({
      [p('node_modules/prom-client/index.js')]: 'prom',
      [p('node_modules/prom-client/lib/registry.js')]: 'registry',
      [p('node_modules/prom-client/README.md')]: 'not traced',
      [p('node_modules/@scope/pino/index.js')]: 'pino',
      [p('node_modules/react/index.js')]: 'react, ours',
      [p('dist/lib/server/start.js')]: 'server',
    });
    // Next's trace already holds react: its copy stays as Next traced it.
    const dest = folder({ [p('node_modules/react/index.js')]: 'react, Next’s' });
    const traced = [
      p('dist/lib/server/start.js'),
      p('node_modules/react/index.js'),
      p('node_modules/prom-client/lib'),
      p('node_modules/prom-client/lib/registry.js'),
      p('node_modules/prom-client/index.js'),
      p('node_modules/@scope/pino/index.js'),
      p('node_modules/.package-lock.json'),
    ];
    const result = await copyServerDependencies({ root, dest, trace: async () => traced });
    expect(result).toEqual({ copied: 3, packages: ['pino', 'prom-client'] });
    expect(readFileSync(path.join(dest, 'node_modules/prom-client/lib/registry.js'), 'utf8')).toBe(
      'registry',
    );
    expect(readFileSync(path.join(dest, 'node_modules/@scope/pino/index.js'), 'utf8')).toBe('pino');
    expect(readFileSync(path.join(dest, 'node_modules/react/index.js'), 'utf8')).toBe('react, Next’s');
    expect(existsSync(path.join(dest, 'node_modules/prom-client/README.md'))).toBe(false);
    expect(existsSync(path.join(dest, 'dist'))).toBe(false);
    expect(existsSync(path.join(dest, 'node_modules/.package-lock.json'))).toBe(false);
  });

  it('copies nothing, and says so, when Next traced every package', async () => {
    const root = folder({ [p('node_modules/react/index.js')]: 'react' });
    const dest = folder({ [p('node_modules/react/index.js')]: 'react' });
    const result = await copyServerDependencies({
      root,
      dest,
      trace: async () => [p('node_modules/react/index.js')],
    });
    expect(result).toEqual({ copied: 0, packages: [] });
    expect(summary(result)).toBe("Copied 0 files of 0 packages the server needs beyond Next's trace: none.");
    expect(summary({ copied: 3, packages: ['pino', 'prom-client'] })).toBe(
      "Copied 3 files of 2 packages the server needs beyond Next's trace: pino, prom-client.",
    );
  });
});

describe('traceEntries', () => {
  it("follows the server's and the worker's requires into node_modules, and leaves Next's files to Next", async () => {
    expect(ENTRIES).toEqual(['dist/lib/server/start.js', 'dist/lib/management/worker.js']);
    const root = folder({
      'package.json': '{}',
      [p('dist/lib/server/start.js')]: "require('metrics'); require('next/dist/server/next.js');",
      [p('dist/lib/management/worker.js')]: "require('worker-only');",
      [p('node_modules/metrics/package.json')]: '{"name":"metrics","main":"index.js"}',
      [p('node_modules/metrics/index.js')]: 'module.exports = 1;',
      [p('node_modules/worker-only/package.json')]: '{"name":"worker-only","main":"index.js"}',
      [p('node_modules/worker-only/index.js')]: 'module.exports = 2;',
      [p('node_modules/next/package.json')]: '{"name":"next"}',
      [p('node_modules/next/dist/server/next.js')]: "require('next-compiler');",
      [p('node_modules/next-compiler/index.js')]: 'module.exports = 3;',
    });
    const files = [...(await traceEntries(root))];
    expect(files).toEqual(
      expect.arrayContaining([p('node_modules/metrics/index.js'), p('node_modules/worker-only/index.js')]),
    );
    expect(files.filter((file) => file.includes('next'))).toEqual([]);
  });
});
