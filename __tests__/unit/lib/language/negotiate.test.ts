import { ACCEPT_HEADER_MAX_CHARS, boundedHeader } from '@lib/http/accept-bound';
import { negotiateLanguage } from '@lib/language/negotiate';

const OFFERED = ['en', 'fr', 'de', 'es', 'ar'];
const pick = (header: string | undefined) => negotiateLanguage(header, OFFERED, 'en');

describe('negotiateLanguage: the screen language a request gets', () => {
  it.each([
    ['fr', 'fr'],
    ['de', 'de'],
    ['es', 'es'],
    ['ar', 'ar'],
    // A range finds its language's shorter tag (RFC 4647 prefix matching), case aside.
    ['fr-CH, fr;q=0.9', 'fr'],
    ['ar-EG', 'ar'],
    ['DE-de', 'de'],
    // Weights decide, not order.
    ['en;q=0.5, de', 'de'],
    ['fr;q=0.1, es;q=0.8', 'es'],
    // An unknown first choice falls through to the next known one.
    ['xx, es;q=0.2', 'es'],
    // q=0 means "not this one".
    ['en;q=0, fr', 'fr'],
    ['*;q=0.5, en;q=0', 'fr'],
  ])('%p gets %p', (header, language) => {
    expect(pick(header)).toBe(language);
  });

  it.each([
    ['no header', undefined],
    ['empty', ''],
    ['any language', '*'],
    ['unknown languages', 'xx, yy-ZZ'],
    ['a malformed one', ';;;,,,q='],
    ['a weight that is no number', 'fr;q=abc'],
    ['every offered language refused', 'en;q=0, fr;q=0, de;q=0, es;q=0, ar;q=0'],
  ])('%s gets the default', (_what, header) => {
    expect(pick(header)).toBe('en');
  });

  it('gives the default it is told to, when nothing matches', () => {
    expect(negotiateLanguage('xx', ['fr', 'en'], 'fr')).toBe('fr');
    expect(negotiateLanguage('*', ['fr', 'en'], 'fr')).toBe('fr');
  });

  it('joins a header sent more than once', () => {
    expect(negotiateLanguage(['xx', 'de'], OFFERED, 'en')).toBe('de');
  });
});

describe('boundedHeader: how much of a stranger’s header is read', () => {
  it('keeps a browser’s header whole', () => {
    const header = 'fr-CH,fr;q=0.9,de;q=0.8,en-US;q=0.7,en;q=0.6';
    expect(boundedHeader(header)).toBe(header);
  });

  it('cuts a long one at its last whole range within the bound', () => {
    const header = Array.from({ length: 2000 }, (_, i) => `x${i};q=0.5`).join(', ') + ', fr';
    const read = boundedHeader(header);
    expect(read.length).toBeLessThanOrEqual(ACCEPT_HEADER_MAX_CHARS);
    expect(header.startsWith(read)).toBe(true);
    expect(header[read.length]).toBe(',');
    // So a language past the bound is not seen: the default, at a browser header's cost.
    expect(negotiateLanguage(header, OFFERED, 'en')).toBe('en');
  });

  it('reads 256 characters whole, and cuts at 257 (docs/error-screens.md)', () => {
    // `de` last, so only a header read whole chooses it.
    const at = (length: number) => `${'x'.repeat(length - 3)},de`;
    expect(at(256)).toHaveLength(256);
    expect(boundedHeader(at(256))).toBe(at(256));
    expect(negotiateLanguage(at(256), OFFERED, 'en')).toBe('de');
    expect(boundedHeader(at(257))).toBe('x'.repeat(254));
    expect(negotiateLanguage(at(257), OFFERED, 'en')).toBe('en');
  });

  it('reads nothing of a long header with no comma to cut at', () => {
    expect(boundedHeader('f'.repeat(ACCEPT_HEADER_MAX_CHARS + 1))).toBe('');
  });
});
