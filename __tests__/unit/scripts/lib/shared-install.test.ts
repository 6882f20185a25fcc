import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { shareInstall } from '../../../../scripts/lib/shared-install';

let base: string;
let installed: string;
let checkout: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), 'shared-install-')));
  // An install as npm leaves one: packages, and .bin's symlinks into them.
  installed = path.join(base, 'main/node_modules');
  mkdirSync(path.join(installed, 'next/dist'), { recursive: true });
  mkdirSync(path.join(installed, '.bin'));
  writeFileSync(path.join(installed, 'next/dist/index.js'), 'module.exports = 1;\n');
  symlinkSync('../next/dist/index.js', path.join(installed, '.bin/next'));
  checkout = path.join(base, 'copy');
  mkdirSync(checkout);
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('shareInstall: a copy’s node_modules', () => {
  it('is a folder of its own, of hard links to the installed files, its symlinks kept', () => {
    expect(shareInstall(checkout, installed)).toBe('hard links');
    const modules = path.join(checkout, 'node_modules');
    expect(lstatSync(modules).isDirectory()).toBe(true);
    const file = path.join(modules, 'next/dist/index.js');
    expect(statSync(file).ino).toBe(statSync(path.join(installed, 'next/dist/index.js')).ino);
    expect(readlinkSync(path.join(modules, '.bin/next'))).toBe('../next/dist/index.js');
    expect(readFileSync(path.join(modules, '.bin/next'), 'utf8')).toBe('module.exports = 1;\n');
  });

  it('links to the install itself when given a symlink to it (a worktree’s node_modules)', () => {
    const worktree = path.join(base, 'worktree');
    mkdirSync(worktree);
    symlinkSync(installed, path.join(worktree, 'node_modules'), 'dir');
    expect(shareInstall(checkout, path.join(worktree, 'node_modules'))).toBe('hard links');
    expect(lstatSync(path.join(checkout, 'node_modules')).isDirectory()).toBe(true);
    expect(statSync(path.join(checkout, 'node_modules/next/dist/index.js')).ino).toBe(
      statSync(path.join(installed, 'next/dist/index.js')).ino,
    );
  });

  it('asks GNU cp for the links, from the install to the copy', () => {
    const asked: string[][] = [];
    shareInstall(checkout, installed, (command, args) => {
      asked.push([command, ...args]);
      return { status: 0 };
    });
    expect(asked).toEqual([['cp', '-al', installed, path.join(checkout, 'node_modules')]]);
  });

  it('is a symlink to the install where no hard link can be made, with nothing half made left', () => {
    const got = shareInstall(checkout, installed, (_command, args) => {
      // A cp that stopped part way (EXDEV on the first file of another file system).
      mkdirSync(path.join(args[2] as string, 'next'), { recursive: true });
      return { status: 1 };
    });
    expect(got).toBe('symlink');
    const modules = path.join(checkout, 'node_modules');
    expect(lstatSync(modules).isSymbolicLink()).toBe(true);
    expect(readlinkSync(modules)).toBe(installed);
    expect(existsSync(path.join(modules, 'next/dist/index.js'))).toBe(true);
  });

  it('is a symlink where cp could not even run (no status)', () => {
    expect(shareInstall(checkout, installed, () => ({ status: null }))).toBe('symlink');
    expect(readlinkSync(path.join(checkout, 'node_modules'))).toBe(installed);
  });
});
