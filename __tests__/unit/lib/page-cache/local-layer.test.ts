import { createLocalLayer } from '@lib/page-cache/local-layer';

describe('the page cache layer in memory', () => {
  it('keeps entries that fill it to exactly its bound', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 60);
    local.set('b', 'B', 40);
    expect(local.bytes()).toBe(100);
    expect(local.size()).toBe(2);
    expect(local.get('a')).toBe('A');
    expect(local.get('b')).toBe('B');
  });

  it('lets out the least recently kept entry when one byte more than its bound is held', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 60);
    local.set('b', 'B', 40);
    local.set('c', 'C', 1);
    expect(local.get('a')).toBeUndefined();
    expect(local.get('b')).toBe('B');
    expect(local.get('c')).toBe('C');
    expect(local.bytes()).toBe(41);
    expect(local.size()).toBe(2);
  });

  it('lets out as many of the oldest entries as it takes to fit a new one, and no more', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 30);
    local.set('b', 'B', 30);
    local.set('c', 'C', 30);
    local.set('d', 'D', 70);
    expect([local.get('a'), local.get('b'), local.get('c'), local.get('d')]).toEqual([
      undefined,
      undefined,
      'C',
      'D',
    ]);
    expect(local.bytes()).toBe(100);
  });

  it('counts a read as recent: the entry read last is the last let out', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 50);
    local.set('b', 'B', 50);
    expect(local.get('a')).toBe('A');
    local.set('c', 'C', 50);
    expect(local.get('b')).toBeUndefined();
    expect(local.get('a')).toBe('A');
    expect(local.get('c')).toBe('C');
  });

  it('counts a key written again by its new size, once', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 60);
    local.set('a', 'A2', 30);
    expect(local.bytes()).toBe(30);
    expect(local.size()).toBe(1);
    expect(local.get('a')).toBe('A2');
  });

  it('does not keep an entry larger than the whole layer, nor push anything out for it', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 50);
    local.set('huge', 'H', 101);
    expect(local.get('huge')).toBeUndefined();
    expect(local.get('a')).toBe('A');
    expect(local.bytes()).toBe(50);
  });

  it('drops the old value of a key written again too large to keep', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 50);
    local.set('a', 'A2', 101);
    expect(local.get('a')).toBeUndefined();
    expect(local.bytes()).toBe(0);
  });

  it('forgets a deleted key and its bytes', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 50);
    local.set('b', 'B', 20);
    local.delete('a');
    expect(local.get('a')).toBeUndefined();
    expect(local.bytes()).toBe(20);
    expect(local.size()).toBe(1);
  });

  it('forgets every entry when cleared', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 50);
    local.set('b', 'B', 20);
    local.clear();
    expect(local.get('a')).toBeUndefined();
    expect(local.get('b')).toBeUndefined();
    expect(local.bytes()).toBe(0);
    expect(local.size()).toBe(0);
  });
});

describe('a read that began before a write', () => {
  it('keeps what it read when nothing touched the key meanwhile', () => {
    const local = createLocalLayer<string>(100);
    const generation = local.generation('a');
    expect(local.setIfUnchanged('a', 'read', 10, generation)).toBe(true);
    expect(local.get('a')).toBe('read');
    expect(local.bytes()).toBe(10);
  });

  it('does not overwrite a value set while it was under way', () => {
    const local = createLocalLayer<string>(100);
    const generation = local.generation('a');
    local.set('a', 'written', 10);
    expect(local.setIfUnchanged('a', 'read', 10, generation)).toBe(false);
    expect(local.get('a')).toBe('written');
  });

  it('does not put back a key deleted while it was under way', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'old', 10);
    local.get('a');
    const generation = local.generation('a');
    local.delete('a');
    expect(local.setIfUnchanged('a', 'old', 10, generation)).toBe(false);
    expect(local.get('a')).toBeUndefined();
  });

  it('does not put back a key deleted while it was under way, though the key was never held', () => {
    const local = createLocalLayer<string>(100);
    const generation = local.generation('a');
    local.delete('a');
    expect(local.setIfUnchanged('a', 'old', 10, generation)).toBe(false);
    expect(local.get('a')).toBeUndefined();
  });

  it('does not put anything back after the layer was cleared while it was under way', () => {
    const local = createLocalLayer<string>(100);
    // The key's count is 0 before the clear and 0 after it: only the clear's epoch tells them apart.
    const generation = local.generation('a');
    local.clear();
    expect(local.generation('a')).not.toBe(generation);
    expect(local.setIfUnchanged('a', 'old', 10, generation)).toBe(false);
    expect(local.get('a')).toBeUndefined();
  });

  it('is not taken for unchanged after a clear, even for a key written before it', () => {
    const local = createLocalLayer<string>(100);
    local.set('a', 'A', 10);
    const generation = local.generation('a');
    local.clear();
    local.set('a', 'B', 10);
    expect(local.setIfUnchanged('a', 'old', 10, generation)).toBe(false);
    expect(local.get('a')).toBe('B');
  });

  it('is still refused for a held key once the generations of keys no longer held are pruned', () => {
    const local = createLocalLayer<string>(1_000_000);
    const before = local.generation('held');
    local.set('held', 'written', 10);
    // Many keys written and removed: their generations outnumber the entries, and are pruned.
    for (let n = 0; n < 3000; n += 1) local.delete(`gone-${n}`);
    expect(local.setIfUnchanged('held', 'old', 10, before)).toBe(false);
    expect(local.get('held')).toBe('written');
    // The held key's generation survived the pruning: one taken now still matches.
    const now = local.generation('held');
    expect(now).not.toBe(before);
    expect(local.setIfUnchanged('held', 'read', 10, now)).toBe(true);
  });

  it('does not put back a key deleted while it was under way, though the generations of thousands of others were pruned meanwhile', () => {
    // A peer's bulk revalidation: its messages delete many keys while one read is under way.
    const local = createLocalLayer<string>(1_000_000);
    const generation = local.generation('read');
    local.delete('read');
    for (let n = 0; n < 3000; n += 1) local.delete(`gone-${n}`);
    expect(local.setIfUnchanged('read', 'old', 10, generation)).toBe(false);
    expect(local.get('read')).toBeUndefined();
  });

  it('does not put back a key deleted twice while it was under way, begun after a pruning', () => {
    const local = createLocalLayer<string>(1_000_000);
    for (let n = 0; n < 1100; n += 1) local.delete(`gone-${n}`);
    // Two of a peer's messages for the key while the read is under way: its generation never repeats.
    const generation = local.generation('read');
    local.delete('read');
    local.delete('read');
    expect(local.setIfUnchanged('read', 'old', 10, generation)).toBe(false);
  });

  it('forgets the generations of keys no longer held once they outnumber the entries', () => {
    const local = createLocalLayer<string>(1_000_000);
    const untouched = local.generation('untouched');
    for (let n = 0; n < 1000; n += 1) local.delete(`gone-${n}`);
    expect(local.generation('untouched')).toBe(untouched);
    for (let n = 1000; n < 1100; n += 1) local.delete(`gone-${n}`);
    // Pruned: what a read of a key begun before then started from no longer matches.
    expect(local.generation('untouched')).not.toBe(untouched);
  });

  it('forgets the generations of keys it no longer holds only past twice its entries and 1024', () => {
    const local = createLocalLayer<string>(100);
    const fresh = local.generation('fresh');
    for (let n = 0; n < 1024; n += 1) local.delete(`gone-${n}`);
    // 1024 generations kept: not yet pruned, so a read of a key begun before still keeps its value.
    expect(local.setIfUnchanged('fresh', 'F', 1, fresh)).toBe(true);
    // 1025: pruned, and a read begun before is refused (it may hold a page a peer said is old).
    const past = createLocalLayer<string>(100);
    const other = past.generation('other');
    for (let n = 0; n < 1025; n += 1) past.delete(`gone-${n}`);
    expect(past.setIfUnchanged('other', 'O', 1, other)).toBe(false);
  });

  it('keeps the generations of the keys it holds when it forgets the others', () => {
    const local = createLocalLayer<string>(100);
    local.set('held', 'H', 1);
    const held = local.generation('held');
    for (let n = 0; n < 1100; n += 1) local.delete(`gone-${n}`);
    // Nothing wrote or removed 'held' since: a read begun then may keep what it read.
    expect(local.setIfUnchanged('held', 'H2', 1, held)).toBe(true);
    expect(local.get('held')).toBe('H2');
  });
});
