import { parseRequestTarget } from '@lib/http/request-target';

describe('parseRequestTarget', () => {
  it.each([
    ['/', '/'],
    ['/a/b?c=d#e', '/a/b?c=d#e'],
    ['//evil.example/x', '//evil.example/x'],
  ])('keeps the origin-form target %p as it is', (target, path) => {
    expect(parseRequestTarget(target)).toEqual({ kind: 'path', path });
  });

  it.each([
    ['http://other.example/path?q=1', '/path?q=1'],
    ['HTTPS://other.example', '/'],
    ['http://other.example?x', '/?x'],
    ['http://user@other.example:8080/a', '/a'],
  ])('keeps only the path and query of the absolute-form target %p', (target, path) => {
    expect(parseRequestTarget(target)).toEqual({ kind: 'path', path });
  });

  it('recognises the asterisk-form of OPTIONS *', () => {
    expect(parseRequestTarget('*')).toEqual({ kind: 'asterisk' });
  });

  it.each([undefined, '', 'example.com:443', 'ftp://other.example/x', 'javascript:alert(1)', '**'])(
    'calls %p invalid',
    (target) => {
      expect(parseRequestTarget(target)).toEqual({ kind: 'invalid' });
    },
  );
});

describe('parseRequestTarget, on targets no parser should pass', () => {
  it.each(['xhttp://other.example/a', ' http://other.example/a', 'http://other.example/a\nb'])(
    'calls %p invalid rather than take a path out of it',
    (target) => {
      expect(parseRequestTarget(target)).toEqual({ kind: 'invalid' });
    },
  );
});
