// Every URL in a printed text without its user, password, query and fragment.
import { readSettings } from '@lib/config/settings';
import { withoutUrlSecrets } from '@lib/config/without-url-secrets';

describe('withoutUrlSecrets', () => {
  it.each([
    ['http://user:secret@peer:3000/?token=abc', 'http://peer:3000/'],
    ['https://user@peer.example/path#frag', 'https://peer.example/path'],
    [
      '"https://a:b@x.example:9/p?q=1" must start with http://',
      '"https://x.example:9/p" must start with http://',
    ],
    ['dns:user:secret@peers:3000', 'dns:peers:3000'],
    ['http://a@x,http://b:c@y/?k=v', 'http://x,http://y/'],
    ['http://u:p@[::1', 'http://[::1'],
    ['ftp://u:p@host/file?x', 'ftp://host/file'],
  ])('shows %p as %p', (text, shown) => {
    expect(withoutUrlSecrets(text)).toBe(shown);
  });

  it.each([
    ['http://x?a=1 and more', 'http://x and more'],
    ["'http://x?a=1' and more", "'http://x' and more"],
    ['"http://x#f" and more', '"http://x" and more'],
    // A ? or # ends the authority: an @ after it is the query's, and goes with it.
    ['http://host?q=a@b', 'http://host'],
    ['http://host#x@y', 'http://host'],
  ])('ends a query at a space or a quote: %p as %p', (text, shown) => {
    expect(withoutUrlSecrets(text)).toBe(shown);
  });

  it.each([
    'PORT must be a whole number (got "abc")',
    'http://peer:3000',
    'mail me at a@b.example',
    '',
    // An @ after the authority is no user: the path, a space, a quote or a comma ends it first.
    'http://host/a@b',
    'http://host and mail a@b.example',
    '"http://host" a@b',
    "'http://host' a@b",
    'http://host,b@c',
  ])('leaves %p, which holds no URL secret, as it is', (text) => {
    expect(withoutUrlSecrets(text)).toBe(text);
  });
});

describe('a refused setting holding a URL', () => {
  it.each([
    'https://admin:hunter22@peer:3000/?token=t0k3n',
    'http://admin:hunter22@peer:3000/?token=t0k3n',
    'http://peer:3000/?token=t0k3n',
    'dns:admin:hunter22@peer:3000',
    'http://admin:hunter22@peer:99999/?token=t0k3n',
  ])('is said without its credentials or query: FLEET_PEERS=%p', (value) => {
    let message = '';
    try {
      readSettings({ FLEET_PEERS: value }, { dsnAtBuild: null });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('FLEET_PEERS');
    expect(message).not.toMatch(/admin|hunter22|t0k3n/);
  });
});
