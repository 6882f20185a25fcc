import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { writeServiceWorker } from '../../../scripts/service-worker';
import { FAKE_CSS, fakeBuild } from '../../support/fake-build';
import { SOURCE_ROOT } from '../../support/paths';

const SOURCES = path.join(SOURCE_ROOT, 'lib/service-worker');
let root: string;
let compiled: string;
const saved = { ...process.env };

beforeEach(() => {
  root = fakeBuild('service-worker-', { APP_SERVICE_NAME: 'Apply for a bar licence' });
  // What tsc writes to dist/lib/service-worker/ for `npm run build`.
  compiled = path.join(root, 'compiled');
  mkdirSync(compiled);
  for (const name of ['worker', 'come-back']) {
    const source = readFileSync(path.join(SOURCES, `${name}.ts`), 'utf8');
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(path.join(compiled, `${name}.js`), output);
  }
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  process.env = { ...saved };
});

it('writes the build’s worker, with its id and time, both screens and the build’s settings', async () => {
  const line = await writeServiceWorker(root, {}, compiled, 1_800_000_000_000);
  expect(line).toMatch(
    /^Service worker: \.next\/service-worker\/<language>\.js \(bytes: en \d+, fr \d+, de \d+, es \d+, ar \d+; offline and unavailable screens\)\.$/,
  );
  const script = readFileSync(path.join(root, '.next/service-worker/en.js'), 'utf8');
  expect(script).toContain('"build":{"id":"build-42","time":1800000000000}');
  expect(script).toContain('data-screen=\\"offline\\"');
  expect(script).toContain('data-screen=\\"unavailable\\"');
  expect(script).toContain('You are not connected to the internet – Apply for a bar licence');
  expect(script).toContain(FAKE_CSS);
  // One language per script: the server hands each visitor theirs.
  const arabic = readFileSync(path.join(root, '.next/service-worker/ar.js'), 'utf8');
  expect(arabic).toContain('<html lang=\\"ar\\" dir=\\"rtl\\">');
  expect(arabic).toContain('أنت غير متصل بالإنترنت – Apply for a bar licence');
  expect(arabic).not.toContain('You are not connected to the internet');
});

it('with SERVICE_WORKER=off writes the worker that unregisters itself, and needs no stylesheet', async () => {
  writeFileSync(path.join(root, '.next/build-manifest.json'), JSON.stringify({ pages: { '/_app': [] } }));
  const line = await writeServiceWorker(root, { SERVICE_WORKER: 'off' }, compiled);
  expect(line).toMatch(/SERVICE_WORKER=off: it unregisters itself/);
  const script = readFileSync(path.join(root, '.next/service-worker/en.js'), 'utf8');
  expect(script).toContain('"on":false');
  expect(script).not.toContain('data-screen');
});

it('refuses a SERVICE_WORKER it does not know, naming it', async () => {
  await expect(writeServiceWorker(root, { SERVICE_WORKER: 'disabled' }, compiled)).rejects.toThrow(
    /^SERVICE_WORKER /,
  );
});
