import { decodeEntry, encodeEntry, type CacheEntry } from '@lib/page-cache/codec';

const roundTrip = (entry: CacheEntry) => decodeEntry(encodeEntry(entry));

describe('an entry of the page cache as the store keeps it', () => {
  it('comes back as it went for a Pages Router page, its lifetime included', () => {
    const entry = {
      lastModified: 1_700_000_000_123,
      value: { kind: 'PAGES', html: '<p>Hi</p>', pageData: { pageProps: { id: 7 } }, status: 200 },
      cacheControl: { revalidate: 60, expire: undefined },
    };
    expect(roundTrip(entry)).toEqual(entry);
  });

  it('brings a Buffer back as a Buffer with the same bytes', () => {
    const rsc = Buffer.from([0, 1, 2, 250, 255]);
    const decoded = roundTrip({ lastModified: 1, value: { kind: 'APP_ROUTE', body: rsc } });
    const body = (decoded?.value as { body: unknown }).body;
    expect(Buffer.isBuffer(body)).toBe(true);
    expect(body).toEqual(rsc);
  });

  it('brings a Map back as a Map, with Buffers and Maps inside it', () => {
    const segments = new Map<string, unknown>([
      ['/a', Buffer.from('segment a')],
      ['/b', new Map([['inner', Buffer.from('inner b')]])],
      ['/c', { plain: true }],
    ]);
    const decoded = roundTrip({ lastModified: 1, value: { kind: 'APP_PAGE', segmentData: segments } });
    const map = (decoded?.value as { segmentData: unknown }).segmentData;
    expect(map).toBeInstanceOf(Map);
    const back = map as Map<string, unknown>;
    expect([...back.keys()]).toEqual(['/a', '/b', '/c']);
    expect(Buffer.isBuffer(back.get('/a'))).toBe(true);
    expect((back.get('/a') as Buffer).toString()).toBe('segment a');
    expect(back.get('/b')).toBeInstanceOf(Map);
    const inner = (back.get('/b') as Map<string, unknown>).get('inner');
    expect(Buffer.isBuffer(inner)).toBe(true);
    expect((inner as Buffer).toString()).toBe('inner b');
    expect(back.get('/c')).toEqual({ plain: true });
  });

  it('keeps a Buffer as readable text, not as a list of numbers', () => {
    const text = encodeEntry({ lastModified: 1, value: Buffer.from('hello') });
    expect(text).toContain(Buffer.from('hello').toString('base64'));
    expect(text).not.toContain('"data"');
  });

  it('brings back a null value, a page that is notFound', () => {
    expect(roundTrip({ lastModified: 5, value: null })).toEqual({ lastModified: 5, value: null });
  });

  it('refuses text that is not JSON', () => {
    expect(decodeEntry('not json {')).toBeNull();
    expect(decodeEntry('')).toBeNull();
  });

  it('refuses an entry without lastModified', () => {
    expect(decodeEntry(JSON.stringify({ value: {} }))).toBeNull();
  });

  it('refuses an entry whose lastModified is not a number', () => {
    expect(decodeEntry(JSON.stringify({ lastModified: '1700000000000', value: {} }))).toBeNull();
  });

  it('refuses an entry whose lastModified is not finite', () => {
    // JSON cannot say Infinity; a number too large for a double reads as one.
    expect(decodeEntry('{"lastModified":1e400,"value":{}}')).toBeNull();
    expect(decodeEntry('{"lastModified":-1e400,"value":{}}')).toBeNull();
  });

  it('refuses an entry without a value', () => {
    expect(decodeEntry(JSON.stringify({ lastModified: 1 }))).toBeNull();
  });

  it('refuses an entry whose time is missing, not a number, or not finite', () => {
    expect(decodeEntry('{"value":{}}')).toBeNull();
    expect(decodeEntry('{"lastModified":"1700000000000","value":{}}')).toBeNull();
    expect(decodeEntry('{"lastModified":1e999,"value":{}}')).toBeNull();
  });

  it("gives back a page's props with an empty key as they were, not as a Buffer or a Map", () => {
    const entry = { lastModified: 1, value: { pageData: { '': 'text', list: { '': [['a', 1]] } } } };
    expect(decodeEntry(encodeEntry(entry))).toEqual(entry);
  });
});
