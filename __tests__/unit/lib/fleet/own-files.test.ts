// The files a build serves under static/, as the fleet stage compares them with request paths.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readOwnFiles } from '@lib/fleet/own-files';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'own-files-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

it('names each file below static/ as a URL names it, each segment encoded', () => {
  mkdirSync(path.join(folder, 'chunks', 'pages', 'orders'), { recursive: true });
  writeFileSync(path.join(folder, 'chunks', 'pages', 'orders', '[id]-1a2b.js'), '');
  writeFileSync(path.join(folder, 'chunks', 'main-3c4d.js'), '');
  expect([...readOwnFiles(folder)].sort()).toEqual([
    'chunks/main-3c4d.js',
    'chunks/pages/orders/%5Bid%5D-1a2b.js',
  ]);
});

it('is empty when the build has no static folder', () => {
  expect(readOwnFiles(path.join(folder, 'missing')).size).toBe(0);
});
