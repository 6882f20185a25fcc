import { log } from '../../../../lib/log/json-line';

afterEach(() => jest.restoreAllMocks());

function captured(stream: NodeJS.WriteStream) {
  return jest.spyOn(stream, 'write').mockImplementation(() => true);
}

describe('log', () => {
  it('writes info as one JSON line on stdout', () => {
    const stdout = captured(process.stdout);
    const stderr = captured(process.stderr);
    log('info', 'lifecycle.ready', { port: 3000 });
    expect(stderr).not.toHaveBeenCalled();
    const line = String(stdout.mock.calls[0]![0]);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      level: 'info',
      event: 'lifecycle.ready',
      port: 3000,
    });
  });

  it.each(['warn', 'error'] as const)('writes %s on stderr', (level) => {
    const stdout = captured(process.stdout);
    const stderr = captured(process.stderr);
    log(level, 'x.y');
    expect(stdout).not.toHaveBeenCalled();
    expect(JSON.parse(String(stderr.mock.calls[0]![0])).level).toBe(level);
  });

  it('keeps a message with newlines on one line', () => {
    const stderr = captured(process.stderr);
    log('error', 'server.error', { message: 'one\ntwo' });
    expect(String(stderr.mock.calls[0]![0]).trimEnd().split('\n')).toHaveLength(1);
  });

  it('still logs the event when a field cannot be serialised', () => {
    const stderr = captured(process.stderr);
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    log('error', 'x.cycle', { cycle, big: 1n });
    expect(JSON.parse(String(stderr.mock.calls[0]![0]))).toEqual(
      expect.objectContaining({ event: 'x.cycle', note: 'fields not serialisable' }),
    );
  });

  it('never throws, even when the stream does', () => {
    jest.spyOn(process.stdout, 'write').mockImplementation(() => {
      throw new Error('EPIPE');
    });
    expect(() => log('info', 'x.y')).not.toThrow();
  });
});
