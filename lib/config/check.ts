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
}
