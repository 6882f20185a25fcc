import { boundQuery, countParams, isApiPath, QUERY_MAX_PARAMS } from '@lib/http/query-bound';

describe('countParams', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['a=1&b=2', 2],
    ['a&&b&', 2],
    ['&&&', 0],
    ['a=1&a=2&a=3', 3],
  ])('counts %p as URLSearchParams does: %i', (query, expected) => {
    expect(countParams(query)).toBe(expected);
    expect(countParams(query)).toBe([...new URLSearchParams(query)].length);
  });

  it('stops counting just past the limit, however long the query', () => {
    expect(countParams('a&'.repeat(100_000), 10)).toBe(11);
  });
});

describe('boundQuery', () => {
  it('passes a query at the limit and refuses one past it, keeping the path for the screen', () => {
    const atLimit = `/search?${'a=1&'.repeat(QUERY_MAX_PARAMS)}`;
    expect(boundQuery(atLimit)).toEqual({ kind: 'pass', url: atLimit, path: '/search' });
    expect(boundQuery(`/search?${'a&'.repeat(QUERY_MAX_PARAMS + 1)}`)).toEqual({
      kind: 'too-many',
      path: '/search',
    });
    expect(boundQuery(`/api/orders?${'a&'.repeat(QUERY_MAX_PARAMS + 1)}`)).toEqual({
      kind: 'too-many',
      path: '/api/orders',
    });
  });

  it('passes 256 parameters by default and refuses 257 with 414 (docs/query-bound.md)', () => {
    const at = (count: number) => `/search?${Array.from({ length: count }, (_, i) => `p${i}=1`).join('&')}`;
    expect(boundQuery(at(256))).toEqual({ kind: 'pass', url: at(256), path: '/search' });
    expect(boundQuery(at(257))).toEqual({ kind: 'too-many', path: '/search' });
  });

  it('keeps the query of a probe path with a trailing slash: Next redirects it, query kept', () => {
    expect(boundQuery('/api/health/ready/?a=1')).toEqual({
      kind: 'pass',
      url: '/api/health/ready/?a=1',
      path: '/api/health/ready/',
    });
  });

  it('drops the query of the paths the caller says a probe answers', () => {
    const servedWithSlash = (path: string) => path === '/api/health/';
    expect(boundQuery('/api/health/?a=1', 256, servedWithSlash)).toEqual({
      kind: 'pass',
      url: '/api/health/',
      path: '/api/health/',
    });
    expect(boundQuery('/api/health?a=1', 256, servedWithSlash)).toEqual({
      kind: 'pass',
      url: '/api/health?a=1',
      path: '/api/health',
    });
  });

  it.each(['/api/health', '/api/health/live', '/api/health/ready'])(
    'drops the query of %s entirely, however large',
    (path) => {
      expect(boundQuery(`${path}?${'a&'.repeat(7500)}`)).toEqual({ kind: 'pass', url: path, path });
      expect(boundQuery(`${path}?verbose=1`)).toEqual({ kind: 'pass', url: path, path });
    },
  );

  it('leaves paths without a query, and paths that only look like health, alone', () => {
    expect(boundQuery('/about')).toEqual({ kind: 'pass', url: '/about', path: '/about' });
    expect(boundQuery('/api/healthz?a=1')).toEqual({
      kind: 'pass',
      url: '/api/healthz?a=1',
      path: '/api/healthz',
    });
    // A path that only ends as a probe's is not one: its query is counted as any other's.
    expect(boundQuery(`/docs/api/health?${'a&'.repeat(QUERY_MAX_PARAMS + 1)}`)).toEqual({
      kind: 'too-many',
      path: '/docs/api/health',
    });
  });
});

describe('boundQuery counts the query only', () => {
  it('counts no piece of the path, however many & it holds', () => {
    expect(boundQuery('/a&b&c?x', 1)).toEqual({ kind: 'pass', url: '/a&b&c?x', path: '/a&b&c' });
    expect(boundQuery('/a?&x', 1)).toEqual({ kind: 'pass', url: '/a?&x', path: '/a' });
  });
});

describe('isApiPath', () => {
  it.each([
    ['/api', true],
    ['/api/', true],
    ['/api/x', true],
    ['/apis', false],
    ['/about/api', false],
  ])('%s → %p', (path, expected) => {
    expect(isApiPath(path)).toBe(expected);
  });
});
