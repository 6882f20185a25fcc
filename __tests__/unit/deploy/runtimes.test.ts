// Supported runtimes only: Node 22 and 24 LTS. `engines` names them, `npm ci` refuses any other
// (.npmrc's engine-strict), scripts/with-node.sh brings exactly those two, CI tests both and the
// image runs one of them. Node 20 reached its end of life in April 2026.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { major, satisfies } from 'semver';

const ROOT = path.resolve(__dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
/** The versions scripts/with-node.sh installs, by major. */
const brought = Object.fromEntries(
  [...read('scripts/with-node.sh').matchAll(/^ {2}(\d+)\) version=([\d.]+) ;;$/gm)].map((m) => [m[1], m[2]!]),
);

describe('supported runtimes', () => {
  it('are Node 22 and 24, each as scripts/with-node.sh brings it', () => {
    expect(Object.keys(brought).sort()).toEqual(['22', '24']);
    for (const version of Object.values(brought)) expect(satisfies(version, engines)).toBe(true);
  });

  it('leave out Node 20, 21, 23 and Node 22 before its LTS', () => {
    for (const version of ['20.20.2', '20.9.0', '21.7.3', '22.11.0', '23.11.0']) {
      expect(satisfies(version, engines)).toBe(false);
    }
  });

  it('are enforced by npm ci', () => {
    expect(read('.npmrc')).toMatch(/^engine-strict=true$/m);
  });

  it('are the ones CI runs the README test command on', () => {
    const ci = read('.ci/run');
    const runs = [...ci.matchAll(/^on_node (\d+) readme_test_command$/gm)].map((m) => m[1]);
    expect(runs.sort()).toEqual(['22', '24']);
  });

  it('include the image runtime', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))?.[1];
    expect(brought[image!]).toBeDefined();
    expect(major(brought[image!]!)).toBe(24);
  });

  it('are the ones the README names', () => {
    expect(read('README.md')).toContain('with Node.js 22 or 24 LTS');
  });
});
