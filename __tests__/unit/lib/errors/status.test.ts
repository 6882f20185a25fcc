import { errorKindFor, statusFromContext } from '@lib/errors/status';

describe('statusFromContext', () => {
  it("takes the response's status first, as Next documents it for _error", () => {
    expect(statusFromContext({ res: { statusCode: 500 }, err: { statusCode: 404 } })).toBe(500);
  });

  it("takes the error's status when there is no response (a client-side render)", () => {
    expect(statusFromContext({ res: null, err: { statusCode: 403 } })).toBe(403);
    expect(statusFromContext({ err: { statusCode: 403 } })).toBe(403);
  });

  it('is 404 when Next hands neither', () => {
    expect(statusFromContext({})).toBe(404);
    expect(statusFromContext({ res: null, err: null })).toBe(404);
  });

  it('is undefined for an error with no status of its own: a client-side exception', () => {
    expect(statusFromContext({ err: {} })).toBeUndefined();
    expect(errorKindFor(statusFromContext({ err: {} }))).toBe('client-exception');
  });
});

describe('errorKindFor', () => {
  it.each([
    [404, 'not-found'],
    [410, 'not-found'],
    // The 4xx range at both ends, and one past each.
    [399, 'server-error'],
    [400, 'bad-request'],
    [405, 'bad-request'],
    [409, 'bad-request'],
    [411, 'bad-request'],
    [499, 'bad-request'],
    [500, 'server-error'],
    [503, 'server-error'],
    // A 2xx or 3xx reaching _error still means something failed.
    [200, 'server-error'],
    [302, 'server-error'],
  ] as const)('%i is %s', (status, kind) => {
    expect(errorKindFor(status)).toBe(kind);
  });

  it('is a client exception without a status', () => {
    expect(errorKindFor(undefined)).toBe('client-exception');
  });
});
