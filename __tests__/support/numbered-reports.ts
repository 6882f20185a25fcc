// Envelopes numbered for the report queue's tests: report n carries event id n (32 digits) and the
// message "report n", so a test tells which reports were sent, kept or dropped, and in what order.

/** A DSN whose ingest nothing answers: a queue test's sending is always its own stand-in's. */
export const DSN = 'http://key@127.0.0.1:9/1';

/** Report n's event id: n, padded to the 32 hexadecimal digits an event id has. */
export const eventIdOf = (n: number): string => String(n).padStart(32, '0');

/** Report n as an envelope of one item of `type`, its message padded with `pad` more characters. */
export const envelope = (n: number, type = 'event', pad = 0): string =>
  `{"event_id":"${eventIdOf(n)}","dsn":"${DSN}"}\n{"type":"${type}"}\n{"message":"report ${n}${'x'.repeat(pad)}"}\n`;

/** The number of the report an envelope's body carries. */
export const idOf = (body: Uint8Array | string): number =>
  Number(/"report (\d+)/.exec(typeof body === 'string' ? body : Buffer.from(body).toString())![1]);
