import { createServer } from 'node:net';
import { readSettings } from '@lib/config/settings';
import { listenFailure as listenFailureOfManagement } from '@lib/management/listener';
import { CannotStart, cannotStartReason, sayCannotStart } from '@lib/server/cannot-start';

afterEach(() => jest.restoreAllMocks());

/** The JSON lines the logger writes to stderr while `run` runs. */
function captureLogLines(run: () => void): unknown[] {
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  run();
  return stderr.mock.calls.map(([line]) => JSON.parse(String(line)) as unknown);
}

/** A listen failure as node:net makes it, with the setting the server names it by. */
function listenFailure(code: string, port: number, setting?: string) {
  return Object.assign(new Error(`listen ${code}: 0.0.0.0:${port}`), {
    code,
    syscall: 'listen',
    port,
    ...(setting ? { setting } : {}),
  });
}

describe('cannotStartReason', () => {
  it('is the sentence of a CannotStart', () => {
    expect(
      cannotStartReason(new CannotStart('No production build in .next/: run `npm run build` first.')),
    ).toBe('No production build in .next/: run `npm run build` first.');
  });

  it('is the settings readers’ one line when a setting is refused', () => {
    let refused: unknown;
    try {
      readSettings({ PORT: 'eighty' }, { dsnAtBuild: null });
    } catch (error) {
      refused = error;
    }
    expect(cannotStartReason(refused)).toMatch(/^Invalid configuration: PORT must be a whole number/);
  });

  it('names the port in use and the setting that chose it', () => {
    expect(cannotStartReason(listenFailure('EADDRINUSE', 3000, 'PORT'))).toBe(
      'Port 3000 is already in use (PORT): stop what listens there, or start with PORT set to a free port.',
    );
    expect(cannotStartReason(listenFailure('EADDRINUSE', 9464, 'MANAGEMENT_PORT'))).toMatch(
      /^Port 9464 is already in use \(MANAGEMENT_PORT\): .* MANAGEMENT_PORT set to a free port\.$/,
    );
  });

  it('says a port below 1024 needs another user or another port', () => {
    expect(cannotStartReason(listenFailure('EACCES', 80, 'PORT'))).toMatch(
      /^This user may not listen on port 80 \(PORT\)/,
    );
  });

  it('names PORT when the failure does not say which setting chose the port', () => {
    expect(cannotStartReason(listenFailure('EADDRINUSE', 3000))).toBe(
      'Port 3000 is already in use (PORT): stop what listens there, or start with PORT set to a free port.',
    );
  });

  it('says nothing of a listen failure that names no port, nor of what is not an error', () => {
    expect(
      cannotStartReason(Object.assign(new Error('x'), { code: 'EADDRINUSE', syscall: 'listen' })),
    ).toBeNull();
    for (const thrown of [null, undefined, 'EADDRINUSE', 42]) expect(cannotStartReason(thrown)).toBeNull();
  });

  /** The error a real listen on `host` fails with (it never listens: the name or address is not this machine's). */
  function realListenFailure(host: string): Promise<Error> {
    return new Promise((resolve) => {
      const server = createServer();
      server.once('error', (error) => resolve(Object.assign(error, { setting: 'PORT', host })));
      server.listen(0, host, () => server.close(() => resolve(new Error('it listened'))));
    });
  }

  it('says a HOST that resolves to nothing, naming it, and what HOST may be', async () => {
    expect(cannotStartReason(await realListenFailure('no-such-host.invalid'))).toBe(
      'HOST no-such-host.invalid names no address this machine can find: set HOST to an address of this machine (0.0.0.0 for all of them, 127.0.0.1 for this machine alone).',
    );
    for (const code of ['EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EAI_NODATA'])
      expect(cannotStartReason(Object.assign(new Error(code), { code, hostname: 'db' }))).toMatch(
        /^HOST db names no address this machine can find: /,
      );
  });

  it('says a HOST that is not an address of this machine, naming it', async () => {
    expect(cannotStartReason(await realListenFailure('192.0.2.1'))).toBe(
      'HOST 192.0.2.1 is not an address of this machine: set HOST to an address of this machine (0.0.0.0 for all of them, 127.0.0.1 for this machine alone).',
    );
  });

  it("says the management listener's HOST failure the same way, and HOST alone when no name is known", () => {
    const failed = listenFailureOfManagement(
      { message: 'listen EADDRNOTAVAIL', code: 'EADDRNOTAVAIL' },
      9464,
      '192.0.2.1',
    );
    expect(cannotStartReason(failed)).toMatch(/^HOST 192\.0\.2\.1 is not an address of this machine: /);
    expect(cannotStartReason(Object.assign(new Error('x'), { code: 'ENOTFOUND' }))).toMatch(
      /^HOST names no address this machine can find: /,
    );
  });

  it('a CannotStart says what it is', () => {
    expect(String(new CannotStart('No build.'))).toBe('CannotStart: No build.');
  });

  it('leaves every other failure to the log with its stack', () => {
    expect(cannotStartReason(new Error('boom'))).toBeNull();
    expect(
      cannotStartReason(Object.assign(new Error('x'), { code: 'EADDRINUSE', syscall: 'connect', port: 1 })),
    ).toBeNull();
    expect(cannotStartReason(listenFailure('EMFILE', 3000, 'PORT'))).toBeNull();
    expect(cannotStartReason(undefined)).toBeNull();
    expect(cannotStartReason('a string')).toBeNull();
  });

  it('never throws, even for an error that throws when read', () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('no');
        },
      },
    );
    expect(cannotStartReason(hostile)).toBeNull();
  });
});

describe('sayCannotStart', () => {
  it('writes the sentence alone at a terminal', () => {
    const written: string[] = [];
    sayCannotStart('Run `npm run build` first.', {
      isTTY: true,
      write: (text: string) => written.push(text) > 0,
    });
    expect(written).toEqual(['Run `npm run build` first.\n']);
  });

  it('writes one JSON log line elsewhere, without a stack', () => {
    const written: string[] = [];
    const lines = captureLogLines(() =>
      sayCannotStart('Run `npm run build` first.', {
        isTTY: false,
        write: (text: string) => written.push(text) > 0,
      }),
    );
    expect(written).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        event: 'server.cannot_start',
        message: 'Run `npm run build` first.',
      }),
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/stack/);
  });
});
