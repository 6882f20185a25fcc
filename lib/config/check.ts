// What a row of ./variables.ts checks a value with. In a file of its own so that the checks that
// live beside the table (./peer-list.ts) need not import the table they are part of.

/** A non-empty value's reading: the value, or why it is refused (a sentence without the name). */
export type Parsed<T> = { value: T } | { problem: string };

export interface Check<T> {
  /** What the check accepts, for the reference. */
  accepts: string;
  parse: (raw: string) => Parsed<T>;
  /** False where a refused value may hold a secret: its problem then does not repeat it. */
  echo?: false;
  /**
   * A variable set to nothing (empty, or only spaces) reads as unset, its fallback, unless this
   * says otherwise. `refused` where unset quietly turns something off that operators count on: a
   * value that is present but empty is then a value lost on its way (a Secret's key left blank, an
   * `X=` line in a .env file) rather than a choice, and the start stops saying so, with `fix`
   * (what to set instead, as a sentence to follow "set but empty: "), rather than run without it.
   */
  blank?: { refused: string };
}
