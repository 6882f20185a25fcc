import { noteLogged, wasLogged } from '@lib/log/logged-errors';

describe('errors that have a log line of their own', () => {
  it('are the objects noted, and no others', () => {
    const error = new Error('logged');
    expect(wasLogged(error)).toBe(false);
    noteLogged(error);
    expect(wasLogged(error)).toBe(true);
    expect(wasLogged(new Error('logged'))).toBe(false);
  });

  it('can be functions too, which may be thrown', () => {
    const thrown = () => undefined;
    noteLogged(thrown);
    expect(wasLogged(thrown)).toBe(true);
  });

  it('carry the note out of sight: no copy, key or JSON of the error shows it', () => {
    const error = Object.assign(new Error('logged'), { code: 'E' });
    noteLogged(error);
    expect(wasLogged({ ...error })).toBe(false);
    expect(JSON.stringify(error)).toBe('{"code":"E"}');
  });

  it('never throws for what cannot be noted or asked about', () => {
    for (const value of [null, undefined, 'a string', 42, Symbol('s'), Object.freeze(new Error('frozen'))]) {
      expect(() => noteLogged(value)).not.toThrow();
      expect(wasLogged(value)).toBe(false);
    }
  });
});
