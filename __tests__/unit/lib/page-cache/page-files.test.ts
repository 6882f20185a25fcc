// The page cache's folders (lib/page-cache/page-files.ts), through Next's real FileSystemCache on a
// temporary folder: the build's pages read and never written, the writable folder written and read back.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { nodeFs } from 'next/dist/server/lib/node-fs-methods';
import { buildPages, cacheFolderOf, cacheFolderPages } from '@lib/page-cache/page-files';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'page-cache-files-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const page = { kind: 'PAGES', html: '<p>shoe</p>', pageData: { id: 7 }, headers: {}, status: 200 };
const context = { kind: 'PAGES', isFallback: false } as const;

describe("the page cache's folders", () => {
  it("are under Next's cache folder, one a build", () => {
    expect(cacheFolderOf('/app/.next/server', 'b1')).toBe('/app/.next/cache/app-shell-pages/b1');
  });

  it("the build's pages can be read, never written", () => {
    expect(buildPages(nodeFs, path.join(root, 'server')).set).toBeUndefined();
  });

  it('the writable folder is made with its missing parents, written, and read back by another reader', async () => {
    const folder = cacheFolderOf(path.join(root, '.next', 'server'), 'b1');
    const opened = cacheFolderPages(nodeFs, folder);
    expect(opened.files?.set).toBeDefined();
    await opened.files!.set!('/shoe', page, { ...context, cacheControl: { revalidate: 60 } } as never);
    expect(existsSync(path.join(folder, 'pages', 'shoe.html'))).toBe(true);
    const again = cacheFolderPages(nodeFs, folder);
    expect(await again.files!.get('/shoe', context)).toMatchObject({ value: { html: '<p>shoe</p>' } });
  });

  it('is none when the folder cannot be made, with the error', () => {
    writeFileSync(path.join(root, 'cache'), 'a file, not a folder');
    const opened = cacheFolderPages(nodeFs, path.join(root, 'cache', 'app-shell-pages', 'b1'));
    expect(opened).toEqual({ files: null, error: expect.objectContaining({ code: 'ENOTDIR' }) });
  });
});
