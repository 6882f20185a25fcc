// The request line is made by hand (lib/log/logger.ts `logRequest`), for its cost: it must be the
// very text pino writes for `log(level, 'http.request', fields)`, whatever the fields hold.
import { log, logRequest, QUOTED_KEPT, quotedKept, type RequestLine } from '@lib/log/logger';

/** What the logger writes to stdout and stderr while `act` runs, each line marked with its stream. */
function captured(act: () => void): string[] {
  const lines: string[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(`${stream === process.stdout ? 'out' : 'err'} ${String(chunk)}`);
      return true;
    }),
  );
  try {
    act();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return lines;
}

/** As captured, the time of each line masked. */
function written(act: () => void): string[] {
  return captured(act).map((line) => line.replace(/"time":"[^"]+"/, '"time":"…"'));
}

/** The time of a request line written when the clock says `at`. */
function timeOf(at: number): string {
  const now = jest.spyOn(Date, 'now').mockReturnValue(at);
  try {
    const [line] = captured(() =>
      logRequest('info', { method: 'GET', path: '/', route: '/', status: 200, durationMs: 1 }),
    );
    return (JSON.parse((line as string).slice('out '.length)) as { time: string }).time;
  } finally {
    now.mockRestore();
  }
}

const cases: [string, 'info' | 'error', RequestLine][] = [
  [
    'a plain answer',
    'info',
    { method: 'GET', path: '/orders?page=2', route: '/orders', status: 200, durationMs: 1.5 },
  ],
  [
    'a path with quotes, a backslash, control characters and non-ASCII',
    'info',
    { method: 'POST', path: '/a"b\\c\u0001\n\u2028é😀', route: '/[slug]', status: 404, durationMs: 0 },
  ],
  [
    'an answer cut short, with a reference',
    'info',
    {
      method: 'GET',
      path: '/x',
      route: '/x',
      status: 499,
      durationMs: 12.3,
      aborted: true,
      reference: 'ab12',
    },
  ],
  [
    'a server error, to stderr',
    'error',
    { method: 'PUT', path: '/api/x', route: '/api/x', status: 503, durationMs: 1e-7 },
  ],
];

it.each(cases)('%s: the text pino writes', (_, level, line) => {
  const byPino = written(() => log(level, 'http.request', { ...line }));
  expect(byPino).toHaveLength(1);
  expect(written(() => logRequest(level, line))).toEqual(byPino);
});

it('never throws', () => {
  const cyclic = { toJSON: () => BigInt(1) } as unknown as string;
  expect(() =>
    written(() =>
      logRequest('info', { method: 'GET', path: cyclic, route: '/', status: 200, durationMs: 1 }),
    ),
  ).not.toThrow();
});

it(`keeps at most ${QUOTED_KEPT} paths' JSON, whatever a stranger asks, and each line stays right`, () => {
  const lineFor = (path: string): RequestLine => ({
    method: 'GET',
    path,
    route: '/404',
    status: 404,
    durationMs: 1,
  });
  let most = 0;
  written(() => {
    for (let n = 0; n < 3 * QUOTED_KEPT; n += 1) {
      logRequest('info', lineFor(`/p${n}`));
      most = Math.max(most, quotedKept());
    }
  });
  // Filled to the bound, never past it.
  expect(most).toBe(QUOTED_KEPT);
  for (const path of ['/p0', `/p${3 * QUOTED_KEPT - 1}`, '/"q"'])
    expect(written(() => logRequest('info', lineFor(path)))).toEqual(
      written(() => log('info', 'http.request', { ...lineFor(path) })),
    );
});

describe('the time of a request line', () => {
  it('is written to the millisecond, however many lines share one', () => {
    const at = Date.parse('2026-12-03T10:00:00.000Z');
    expect(timeOf(at)).toBe('2026-12-03T10:00:00.000Z');
    expect(timeOf(at)).toBe('2026-12-03T10:00:00.000Z');
    expect(timeOf(at + 1)).toBe('2026-12-03T10:00:00.001Z');
    expect(timeOf(at + 1000)).toBe('2026-12-03T10:00:01.000Z');
  });

  // Milliseconds of one, two and three digits, a second's and a minute's and a year's turn, one line
  // after another within the same second and across them, before 1970, and past the year 9999.
  const base = Date.UTC(2026, 11, 31, 23, 59, 59);
  const instants = [
    base,
    base + 7,
    base + 42,
    base + 999,
    base + 1000,
    base + 1001,
    base + 1000,
    base + 61_010,
    base - 1,
    Date.UTC(2024, 1, 29, 12, 0, 0, 5),
    0,
    -1,
    -999,
    -1000,
    -1001,
    Date.UTC(1969, 11, 31, 23, 59, 58, 250),
    Date.UTC(10_000, 0, 1, 0, 0, 0, 30),
    Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  ];

  it.each(instants)('is what toISOString writes for %d, line after line', (at) => {
    expect(timeOf(at)).toBe(new Date(at).toISOString());
  });

  it('follows the clock within one second and across seconds, millisecond by millisecond', () => {
    for (let at = base - 3; at <= base + 1003; at += 1) expect(timeOf(at)).toBe(new Date(at).toISOString());
    for (let at = -1003; at <= 3; at += 1) expect(timeOf(at)).toBe(new Date(at).toISOString());
  });
});
