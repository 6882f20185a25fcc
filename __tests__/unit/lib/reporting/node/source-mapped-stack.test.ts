import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  forgetMaps,
  MAPS_KEPT,
  MAX_FRAMES_RESOLVED,
  MAX_MAP_BYTES,
  serverMapsSlot,
  sourceMappedStack,
  sourcePath,
} from '@lib/reporting/node/source-mapped-stack';

let dir: string;
let place: { bundles: string; maps: string };

/** Line 1 column 1 of the bundle is line 3 column 6 of `source`; column 11 is column 7. */
function keepMap(bundle: string, source = 'webpack://next-app-shell/./pages/products/[id].tsx'): void {
  const file = path.join(place.maps, `${bundle}.map`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ version: 3, sources: [source], names: [], mappings: 'AAEK,UAAC' }));
}

const frame = (bundle: string, line: number, column: number, name = 'getServerSideProps') =>
  `    at ${name} (${path.join(place.bundles, bundle)}:${line}:${column})`;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'stack-'));
  place = { bundles: path.join(dir, '.next/server'), maps: path.join(dir, '.next/sourcemaps/server') };
  forgetMaps();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  serverMapsSlot.clear();
});

describe('a server error’s stack, through the build’s kept maps', () => {
  it('names the source file, line and column of each frame in a bundle with a map', () => {
    keepMap('pages/products/[id].js');
    const stack = [
      'TypeError: fetch failed',
      frame('pages/products/[id].js', 1, 1),
      frame('pages/products/[id].js', 1, 11, 'async Object.handler'),
      '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
    ].join('\n');
    expect(sourceMappedStack(stack, place)).toBe(
      [
        'TypeError: fetch failed',
        '    at getServerSideProps (pages/products/[id].tsx:3:6)',
        '    at async Object.handler (pages/products/[id].tsx:3:7)',
        '    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)',
      ].join('\n'),
    );
  });

  it('resolves a frame without a function name too', () => {
    keepMap('chunks/1.js');
    expect(sourceMappedStack(`Error: x\n    at ${path.join(place.bundles, 'chunks/1.js')}:1:1`, place)).toBe(
      'Error: x\n    at pages/products/[id].tsx:3:6',
    );
  });

  it('reads the place the server wrote at start when given none', () => {
    keepMap('pages/a.js');
    serverMapsSlot.write(place);
    expect(sourceMappedStack(`Error: x\n${frame('pages/a.js', 1, 1)}`)).toContain(
      'pages/products/[id].tsx:3:6',
    );
  });

  it('leaves the stack as it is without a place (bare next start, npm run dev)', () => {
    const stack = `Error: x\n${frame('pages/a.js', 1, 1)}`;
    expect(sourceMappedStack(stack)).toBe(stack);
  });

  it('leaves frames outside the bundles, of files that are not scripts, and without a map', () => {
    keepMap('pages/a.js');
    const outside = path.join(dir, 'elsewhere/pages/a.js');
    const sibling = `${place.bundles}-old/pages/a.js`;
    const notScript = path.join(place.bundles, 'pages/a.json');
    // A map where each would be looked for: only the bundles' own scripts are looked up at all, so
    // no map is ever read from outside the maps folder (`../` after the relative path).
    for (const file of [outside, sibling, notScript]) keepMap(path.relative(place.bundles, file));
    const unmapped = frame('pages/b.js', 1, 1);
    const stack = [
      'Error: x',
      ...[outside, sibling, notScript].map((file) => `    at f (${file}:1:1)`),
      unmapped,
    ];
    expect(sourceMappedStack(stack.join('\n'), place)).toBe(stack.join('\n'));
  });

  it('leaves a frame past the last mapping of its line (Node answers no column there)', () => {
    keepMap('pages/a.js');
    const stack = `Error: x\n${frame('pages/a.js', 2, 1)}`;
    expect(sourceMappedStack(stack, place)).toBe(stack);
  });

  it('leaves a bundle whose map does not parse, and one larger than it reads', () => {
    mkdirSync(path.join(place.maps, 'pages'), { recursive: true });
    writeFileSync(path.join(place.maps, 'pages/broken.js.map'), '{ not json');
    // A map that would resolve the frame, one byte over: spaces after its JSON.
    const map = JSON.stringify({ version: 3, sources: ['pages/a.tsx'], names: [], mappings: 'AAEK' });
    writeFileSync(path.join(place.maps, 'pages/huge.js.map'), map.padEnd(MAX_MAP_BYTES + 1, ' '));
    const stack = ['Error: x', frame('pages/broken.js', 1, 1), frame('pages/huge.js', 1, 1)].join('\n');
    expect(sourceMappedStack(stack, place)).toBe(stack);
  });

  it('reads a map of exactly the largest size it reads', () => {
    const map = JSON.stringify({
      version: 3,
      sources: ['webpack://app/./pages/a.tsx'],
      names: [],
      mappings: 'AAEK',
    });
    mkdirSync(path.join(place.maps, 'pages'), { recursive: true });
    writeFileSync(path.join(place.maps, 'pages/a.js.map'), map.padEnd(MAX_MAP_BYTES, ' '));
    expect(sourceMappedStack(`Error: x\n${frame('pages/a.js', 1, 1)}`, place)).toContain('(pages/a.tsx:3:6)');
  });

  it(`looks up at most ${MAX_FRAMES_RESOLVED} frames of one stack`, () => {
    keepMap('pages/a.js');
    const frames = Array.from({ length: MAX_FRAMES_RESOLVED + 1 }, () => frame('pages/a.js', 1, 1));
    const lines = sourceMappedStack(['Error: x', ...frames].join('\n'), place).split('\n');
    expect(lines.filter((line) => line.includes('[id].tsx'))).toHaveLength(MAX_FRAMES_RESOLVED);
    expect(lines.at(-1)).toBe(frames.at(-1));
  });

  it('reads each map once, and lets go of the least recently used past MAPS_KEPT', () => {
    keepMap('pages/a.js');
    const stack = `Error: x\n${frame('pages/a.js', 1, 1)}`;
    const resolved = () => sourceMappedStack(stack, place).includes('[id].tsx:3:6');
    expect(resolved()).toBe(true);
    // Gone from the disk: only the map read before can answer from now on.
    rmSync(place.maps, { recursive: true });
    const others = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) =>
        sourceMappedStack(`Error: x\n${frame(`${prefix}-${i}.js`, 1, 1)}`, place),
      );
    // The first of MAPS_KEPT, then used again: the next one read lets another go, not it.
    others('pages/old', MAPS_KEPT - 1);
    expect(resolved()).toBe(true);
    others('pages/new', 1);
    expect(resolved()).toBe(true);
    // MAPS_KEPT more: it is let go.
    others('pages/newer', MAPS_KEPT);
    expect(resolved()).toBe(false);
  });

  it('reads a map again after forgetMaps, as it is on the disk then', () => {
    keepMap('pages/a.js');
    const stack = `Error: x\n${frame('pages/a.js', 1, 1)}`;
    expect(sourceMappedStack(stack, place)).toContain('(pages/products/[id].tsx:3:6)');
    keepMap('pages/a.js', 'webpack://next-app-shell/./pages/other.tsx');
    forgetMaps();
    expect(sourceMappedStack(stack, place)).toContain('(pages/other.tsx:3:6)');
  });

  it('lets go of the oldest map once MAPS_KEPT others were read after it', () => {
    keepMap('pages/a.js');
    const stack = `Error: x\n${frame('pages/a.js', 1, 1)}`;
    expect(sourceMappedStack(stack, place)).toContain('[id].tsx:3:6');
    rmSync(place.maps, { recursive: true });
    for (let i = 0; i < MAPS_KEPT - 1; i += 1)
      sourceMappedStack(`Error: x\n${frame(`pages/o-${i}.js`, 1, 1)}`, place);
    // MAPS_KEPT kept, the first among them: one more lets it go.
    sourceMappedStack(`Error: x\n${frame('pages/last.js', 1, 1)}`, place);
    expect(sourceMappedStack(stack, place)).toBe(stack);
  });

  it('reads lines and columns of more than one digit, and a first column', () => {
    const file = path.join(place.maps, 'pages/long.js.map');
    mkdirSync(path.dirname(file), { recursive: true });
    // Line 12 of the bundle: line 3, column 1 of the source at its column 1; column 6 at its 11.
    writeFileSync(
      file,
      JSON.stringify({
        version: 3,
        sources: ['webpack://app/./lib/long.ts'],
        names: [],
        mappings: ';;;;;;;;;;;AAEA,UAAK',
      }),
    );
    expect(
      sourceMappedStack(
        `Error: x\n${frame('pages/long.js', 12, 1)}\n${frame('pages/long.js', 12, 11)}`,
        place,
      ),
    ).toBe(
      'Error: x\n    at getServerSideProps (lib/long.ts:3:1)\n    at getServerSideProps (lib/long.ts:3:6)',
    );
  });

  it('resolves a frame at the start of its line, and leaves lines that only look like frames', () => {
    keepMap('pages/a.js');
    const bundle = path.join(place.bundles, 'pages/a.js');
    expect(sourceMappedStack(`Error: x\nat ${bundle}:1:1`, place)).toBe(
      'Error: x\nat pages/products/[id].tsx:3:6',
    );
    const message = `Error: it failed at ${bundle}:1:1`;
    const trailing = `    at f (${bundle}:1:1) and more`;
    const stack = [message, trailing].join('\n');
    expect(sourceMappedStack(stack, place)).toBe(stack);
  });

  it('never throws, whatever the stack', () => {
    keepMap('pages/a.js');
    expect(sourceMappedStack('', place)).toBe('');
    expect(sourceMappedStack('no frames at all', place)).toBe('no frames at all');
    const hostile = { bundles: 42, maps: null } as unknown as typeof place;
    expect(sourceMappedStack(`Error: x\n${frame('pages/a.js', 1, 1)}`, hostile)).toContain('pages/a.js:1:1');
  });
});

describe('a source’s path in the app', () => {
  it.each([
    ['webpack://next-app-shell/./pages/products/[id].tsx', 'pages/products/[id].tsx'],
    ['webpack://next-app-shell/./node_modules/next/dist/server/a.js', 'node_modules/next/dist/server/a.js'],
    ['webpack://next-app-shell/webpack/runtime/define', 'webpack/runtime/define'],
    ['webpack:///./lib/a.ts', 'lib/a.ts'],
    ['file:///app/lib/a.ts', 'file:///app/lib/a.ts'],
    ['./lib/a.ts', 'lib/a.ts'],
    ['lib/./a.ts', 'lib/./a.ts'],
    ['a/lib.ts', 'a/lib.ts'],
    ['file:///app/webpack://x/a.ts', 'file:///app/webpack://x/a.ts'],
  ])('%s is %s', (source, expected) => {
    expect(sourcePath(source)).toBe(expected);
  });
});
