// Error reference ids: the event id a report is sent under, and the id a screen shows. One id per
// error object, wherever it is reported first.

/** How many leading hex digits of an id screens show and people quote. */
export const SHORT_REFERENCE_LENGTH = 8;

/**
 * The short form of a reference id that screens show and people quote; also a searchable tag on
 * every event, so an operator can find the report from what a person reads out.
 */
export function shortReference(id: string): string {
  return id.replace(/-/g, '').slice(0, SHORT_REFERENCE_LENGTH).toUpperCase();
}

// Symbol.for, not Symbol: each bundle has its own copy of this module, and they must agree.
// Stryker disable next-line StringLiteral: any key the bundles share will do.
const REFERENCE = Symbol.for('app-shell.reference');

/** 32 lower-case hex digits, as Sentry's event ids are; works on plain http too (no randomUUID there). */
export function newEventId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40; // version 4
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // variant
  // (Written for size: this is in every page's first-load JS.)
  return Array.from(bytes, (byte) => (byte + 256).toString(16).slice(1)).join('');
}

function isObject(error: unknown): error is Record<symbol, unknown> {
  return error !== null && (typeof error === 'object' || typeof error === 'function');
}

/** The id this error was already reported under, if any. */
export function referenceOf(error: unknown): string | undefined {
  if (!isObject(error)) return undefined;
  const value = error[REFERENCE];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Records that this error was reported under `id`, so nothing reports it twice and every screen
 * shows the same id. Frozen or primitive errors cannot be marked; that is fine.
 */
export function markReported(error: unknown, id: string): void {
  // (A primitive cannot take a property: defineProperty throws, and the catch below answers.)
  try {
    Object.defineProperty(error, REFERENCE, { value: id, enumerable: false, configurable: true });
  } catch {
    // A frozen error: it may be reported again, which beats throwing on the error path.
  }
}
