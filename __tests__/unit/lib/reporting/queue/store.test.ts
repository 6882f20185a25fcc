// Where waiting envelopes are kept: in memory, or a folder that outlives the process. What a
// folder holds after a crash, and what the store makes of files that are not its own.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { folderStore, memoryStore, type EntryFacts } from '@lib/reporting/queue/store';

const FACTS: EntryFacts = {
  source: 'server',
  queuedAt: 1_700_000_000_000,
  categories: ['error'],
  error: true,
  headers: {},
};
const body = (text: string) => new Uint8Array(Buffer.from(text));

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(path.join(tmpdir(), 'store-'));
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
  jest.restoreAllMocks();
});

describe('entry ids', () => {
  it('sort in the order they were made, within one millisecond too', async () => {
    jest.spyOn(Date, 'now').mockReturnValue(1_700_000_000_123);
    const store = memoryStore();
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push((await store.put(FACTS, body('x'))).id);
    expect(ids.map((id) => id.replace(/-[0-9a-f]{6}$/, ''))).toEqual([
      '001700000000123-000000',
      '001700000000123-000001',
      '001700000000123-000002',
    ]);
    // One tag per process.
    expect(new Set(ids.map((id) => id.slice(-6))).size).toBe(1);
    (Date.now as jest.Mock).mockReturnValue(1_700_000_000_124);
    expect((await store.put(FACTS, body('x'))).id).toMatch(/^001700000000124-000000-[0-9a-f]{6}$/);
  });
});

describe('the memory store', () => {
  it('counts the bytes it holds, and removing an entry twice changes nothing', async () => {
    const store = memoryStore();
    const a = await store.put(FACTS, body('12345'));
    await store.put(FACTS, body('123'));
    expect(store.memoryBytes()).toBe(8);
    await store.remove(a);
    await expect(store.remove(a)).resolves.toBeUndefined();
    expect(store.memoryBytes()).toBe(3);
    await expect(store.read(a)).rejects.toThrow('envelope gone');
  });
});

describe('the folder store', () => {
  it('gives back exactly the envelope it was given, before and after a restart', async () => {
    const first = folderStore(folder);
    await first.load();
    const entry = await first.put(FACTS, body('{"envelope":1}\n{"type":"event"}\n{}'));
    expect(Buffer.from(await first.read(entry)).toString()).toBe('{"envelope":1}\n{"type":"event"}\n{}');
    const second = folderStore(folder);
    const [loaded] = await second.load();
    expect(loaded).toEqual({ ...FACTS, id: entry.id, bytes: entry.bytes });
    expect(Buffer.from(await second.read(loaded!)).toString()).toBe('{"envelope":1}\n{"type":"event"}\n{}');
    expect(second.memoryBytes()).toBe(0);
  });

  it('loads oldest first, and clears what is not a whole entry of its own', async () => {
    const store = folderStore(folder);
    await store.load();
    const later = await store.put({ ...FACTS, queuedAt: 2 }, body('b'));
    const earlier = { id: '000000000000001-000000-aaaaaa' };
    writeFileSync(
      path.join(folder, `${earlier.id}.envelope`),
      `${JSON.stringify({ ...FACTS, queuedAt: 1 })}\na`,
    );
    const damaged = [
      ['no-facts-line.envelope', 'just bytes'],
      ['bad-source.envelope', `${JSON.stringify({ ...FACTS, source: 'elsewhere' })}\nx`],
      ['bad-time.envelope', `${JSON.stringify({ ...FACTS, queuedAt: 'soon' })}\nx`],
      ['bad-categories.envelope', `${JSON.stringify({ ...FACTS, categories: 'error' })}\nx`],
      ['long-facts.envelope', `${JSON.stringify({ ...FACTS, pad: 'x'.repeat(5000) })}\nx`],
      ['not-json.envelope', '{facts\nx'],
      [`${'1'.repeat(15)}-000000-abcdef.envelope.partial`, 'half'],
    ];
    for (const [name, text] of damaged) writeFileSync(path.join(folder, name!), text!);
    writeFileSync(path.join(folder, 'README.txt'), 'an operator’s note');
    const loaded = await folderStore(folder).load();
    expect(loaded.map(({ queuedAt, bytes }) => [queuedAt, bytes])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(readdirSync(folder).sort()).toEqual(
      [`${earlier.id}.envelope`, `${later.id}.envelope`, 'README.txt'].sort(),
    );
  });

  it('loads many entries in the order they were made, whatever order the folder lists them in', async () => {
    const order = Array.from({ length: 40 }, (_, i) => i).sort(() => Math.random() - 0.5);
    for (const i of order) {
      const id = `${String(i + 1).padStart(15, '0')}-000000-abcdef`;
      writeFileSync(path.join(folder, `${id}.envelope`), `${JSON.stringify({ ...FACTS, queuedAt: i })}\nx`);
    }
    const loaded = await folderStore(folder).load();
    expect(loaded.map(({ queuedAt }) => queuedAt)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('leaves no file open once it has loaded', async () => {
    for (let i = 0; i < 20; i += 1)
      writeFileSync(
        path.join(folder, `${String(i + 1).padStart(15, '0')}-000000-abcdef.envelope`),
        `${JSON.stringify(FACTS)}\nx`,
      );
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    await folderStore(folder).load();
    expect(open()).toBe(before);
  });

  it('fails a write it could not make, leaving no half-written file', async () => {
    const store = folderStore(folder);
    await store.load();
    rmSync(folder, { recursive: true, force: true });
    await expect(store.put(FACTS, body('x'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('keeps a facts line of up to 4 KiB', async () => {
    const facts = JSON.stringify({ ...FACTS, headers: { 'user-agent': 'U'.repeat(3900) } });
    expect(facts.length).toBeLessThan(4096);
    writeFileSync(path.join(folder, `${'1'.repeat(15)}-000000-abcdef.envelope`), `${facts}\nbody`);
    const [loaded] = await folderStore(folder).load();
    expect(loaded?.headers['user-agent']).toHaveLength(3900);
  });
});
