// Reference ids: one per error object, kept on it where it can be, never a throw.
import { markReported, newEventId, referenceOf, shortReference } from '@lib/reporting/reference';

describe('the reference an error was reported under', () => {
  it('is kept on an error object, and on a function thrown as one', () => {
    const error = new Error('x');
    const thrownFunction = () => {};
    markReported(error, 'a'.repeat(32));
    markReported(thrownFunction, 'b'.repeat(32));
    expect([referenceOf(error), referenceOf(thrownFunction)]).toEqual(['a'.repeat(32), 'b'.repeat(32)]);
  });

  it('is hidden: not a key of the error, so nothing serialises it', () => {
    const error = new Error('x');
    markReported(error, 'c'.repeat(32));
    expect(Object.keys(error)).toEqual([]);
    expect(JSON.stringify({ ...error })).toBe('{}');
    // A copy is another object: it was not reported.
    expect(referenceOf({ ...error })).toBeUndefined();
  });

  it('can be given again, as the same error is reported from a second place first', () => {
    const error = new Error('x');
    markReported(error, 'c'.repeat(32));
    markReported(error, 'd'.repeat(32));
    expect(referenceOf(error)).toBe('d'.repeat(32));
  });

  it('is none for what cannot hold one, and marking it neither throws nor sticks', () => {
    for (const thrown of [null, undefined, 'text', 42, true]) {
      expect(() => markReported(thrown, 'e'.repeat(32))).not.toThrow();
      expect(referenceOf(thrown)).toBeUndefined();
    }
    const frozen = Object.freeze(new Error('frozen'));
    expect(() => markReported(frozen, 'f'.repeat(32))).not.toThrow();
    expect(referenceOf(frozen)).toBeUndefined();
  });
});

describe('a new event id', () => {
  it('is 32 hex digits of a version-4 UUID, different each time', () => {
    const ids = Array.from({ length: 50 }, newEventId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect(new Set(ids).size).toBe(50);
  });

  it('is quoted by its first 8 digits, upper case', () => {
    expect(shortReference('0a1b2c3d-4e5f')).toBe('0A1B2C3D');
    expect(shortReference('0a1b-2c3d-4e5f')).toBe('0A1B2C3D');
  });
});
