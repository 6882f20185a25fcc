// scripts/lib/server-process.js, which every e2e test and the bench start servers with: a port it
// chose that was taken before the server listened is chosen again; one the caller chose is left to
// the caller, told apart from other failures.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  PortTaken,
  startServerProcess,
  systemRangeStart,
} from '../../../../scripts/lib/server-process';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'server-process-'));
});

afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A server that says its port is taken (as ours and Next's do) and exits, `times` times, then serves. */
function flaky(times: number, said = 'is already in use'): string[] {
  fs.rmSync(path.join(dir, 'attempts'), { force: true });
  const count = path.join(dir, 'attempts');
  const source = `
    const fs = require('node:fs');
    const n = (fs.existsSync(${JSON.stringify(count)}) ? Number(fs.readFileSync(${JSON.stringify(count)}, 'utf8')) : 0) + 1;
    fs.writeFileSync(${JSON.stringify(count)}, String(n));
    if (n <= ${times}) { console.error('Port ' + process.env.PORT + ' ${said}'); process.exit(1); }
    require('node:http').createServer((req, res) => res.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');
  `;
  return ['-e', source];
}

const attempts = () => Number(fs.readFileSync(path.join(dir, 'attempts'), 'utf8'));

it('chooses its port again when the server finds it taken, up to three starts in all', async () => {
  const server = await startServerProcess({
    command: process.execPath,
    args: flaky(2),
    cwd: dir,
    readyPath: '/',
  });
  await server.stop();
  expect(attempts()).toBe(3);
  await expect(
    startServerProcess({ command: process.execPath, args: flaky(3), cwd: dir, readyPath: '/' }),
  ).rejects.toBeInstanceOf(PortTaken);
  // Six Node processes started one after another: seconds each on a busy machine.
}, 30_000);

it('leaves a port the caller chose to the caller, and says why a server that exits did', async () => {
  const args = flaky(1);
  await expect(
    startServerProcess({ command: process.execPath, args, cwd: dir, readyPath: '/', port: 1 }),
  ).rejects.toBeInstanceOf(PortTaken);
  expect(attempts()).toBe(1);
  const failed = startServerProcess({
    command: process.execPath,
    args: flaky(1, 'failed'),
    cwd: dir,
    readyPath: '/',
  });
  await expect(failed).rejects.not.toBeInstanceOf(PortTaken);
  // The command as run, why it stopped, then exactly what it wrote.
  await expect(failed).rejects.toThrow(/^\S+ -e [\s\S]+ exited \(1\)\nPort \d+ failed\n$/);
});

/** A server run with `node -e`: `handler` is the body of its request handler, given `req` and `res`. */
function serving(handler: string, before = ''): string[] {
  return [
    '-e',
    `${before}
    const server = require('node:http').createServer((req, res) => { ${handler} });
    server.listen(Number(process.env.PORT), '127.0.0.1');
    process.on('SIGTERM', () => { console.error('stopping'); server.close(); server.closeAllConnections(); process.exitCode = 3; });`,
  ];
}

describe('a server it starts', () => {
  it('is ready at the first answer with the status asked for, on its chosen port, with its own management port', async () => {
    const before = performance.now();
    const server = await startServerProcess({
      command: process.execPath,
      // Answers 503 three times, then 204, with the environment it was given.
      args: [
        ...serving(
          `n += 1; res.writeHead(n <= 3 ? 503 : 204, { 'x-env': [process.env.PORT, process.env.MANAGEMENT_PORT, process.env.NEXT_TELEMETRY_DISABLED, process.env.GIVEN].join(' ') }).end();`,
          'let n = 0; console.log("listening on {port}");',
        ),
        '{port}',
      ],
      cwd: dir,
      env: { GIVEN: 'yes' },
      readyPath: '/ready',
      readyStatus: 204,
    });
    try {
      // From its spawn to that answer: inside the call's own time.
      expect(server.readyAfterMs).toBeGreaterThan(0);
      expect(server.readyAfterMs).toBeLessThanOrEqual(performance.now() - before);
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.managementPort).toBeGreaterThan(0);
      expect(server.managementPort).not.toBe(server.port);
      const answer = await fetch(`${server.url}/`);
      expect(answer.status).toBe(204);
      expect(answer.headers.get('x-env')).toBe(`${server.port} ${server.managementPort} 1 yes`);
      // `{port}` in the arguments is the chosen port; what the server writes is kept.
      expect(server.output()).toContain(`listening on ${server.port}`);
      expect(server.child.spawnargs.at(-1)).toBe(String(server.port));
    } finally {
      // Stopped with SIGTERM: the server's own exit code, and the same when asked again.
      expect(await server.stop()).toBe(3);
      expect(await server.stop()).toBe(3);
    }
    expect(server.output()).toContain('stopping');
  });

  it('keeps a management port the caller names, and gives no PORT when told not to', async () => {
    const server = await startServerProcess({
      command: process.execPath,
      args: [
        '-e',
        `require('node:http').createServer((req, res) => res.end(String(process.env.PORT) + ' ' + process.env.MANAGEMENT_PORT)).listen(Number(process.argv[1]), '127.0.0.1');`,
        '{port}',
      ],
      cwd: dir,
      env: { MANAGEMENT_PORT: '0', PORT: '1' },
      readyPath: '/',
      setPortVariable: false,
    });
    try {
      expect(server.managementPort).toBe(0);
      expect(await (await fetch(server.url)).text()).toBe('undefined 0');
    } finally {
      await server.stop();
    }
  });

  it('writes standard output to the file asked, which a failed start then quotes', async () => {
    const stdoutFile = path.join(dir, 'out.log');
    const server = await startServerProcess({
      command: process.execPath,
      args: serving('res.end("ok");', 'console.log("to the file"); console.error("to the pipe");'),
      cwd: dir,
      readyPath: '/',
      stdoutFile,
    });
    await server.stop();
    expect(fs.readFileSync(stdoutFile, 'utf8')).toContain('to the file');
    expect(server.output()).toContain('to the pipe');
    expect(server.output()).not.toContain('to the file');
    await expect(
      startServerProcess({
        command: process.execPath,
        args: ['-e', 'console.log("said on stdout"); process.exit(4)'],
        cwd: dir,
        readyPath: '/',
        stdoutFile,
      }),
    ).rejects.toThrow(/exited \(4\)\nsaid on stdout/);
  });

  it('is stopped and said not ready when it never answers in time, even holding each request open', async () => {
    const alive = path.join(dir, 'pid');
    const started = startServerProcess({
      command: process.execPath,
      // Takes connections and never answers them.
      args: serving('', `require('node:fs').writeFileSync(${JSON.stringify(alive)}, String(process.pid));`),
      cwd: dir,
      readyPath: '/',
      // Long enough for Node to start and listen on a loaded machine (it must, to hold requests).
      timeoutMs: 3000,
    });
    await expect(started).rejects.toThrow(/was not ready within 3000 ms/);
    const pid = Number(fs.readFileSync(alive, 'utf8'));
    // Killed: no process of that id left.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(() => process.kill(pid, 0)).toThrow();
  }, 20_000);
});

describe('freePort', () => {
  afterEach(() => jest.restoreAllMocks());

  it('hands out a port once only, though the same one may come up again', async () => {
    jest.spyOn(Math, 'random').mockReturnValueOnce(0.5).mockReturnValueOnce(0.5).mockReturnValueOnce(0.25);
    const first = await freePort();
    const second = await freePort();
    expect(second).not.toBe(first);
  });

  it('hands out only ports below the range the system picks from itself, where no connection out takes them', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    expect(new Set(ports).size).toBe(20);
    const rangeStart = systemRangeStart();
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(rangeStart);
    }
  });

  it('reaches both ends of its span and never a port something listens on', async () => {
    const span = systemRangeStart() - 10_000;
    jest
      .spyOn(Math, 'random')
      .mockReturnValueOnce(0)
      .mockReturnValueOnce((span - 0.5) / span);
    const lowest = await freePort();
    const highest = await freePort();
    expect([lowest, highest]).toEqual([10_000, systemRangeStart() - 1]);

    const busyPort = await freePort();
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(busyPort, '127.0.0.1', resolve));
    // The mocked draws: the listened port first, then the one below it.
    const draw = (port: number) => (port - 10_000 + 0.5) / span;
    jest
      .spyOn(Math, 'random')
      .mockReturnValueOnce(draw(busyPort))
      .mockReturnValueOnce(draw(busyPort - 1));
    const chosen = await freePort();
    await new Promise((resolve) => busy.close(resolve));
    expect(chosen).toBe(busyPort - 1);
  });

  it('gives up after 50 draws that give nothing new, saying so', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(0.75);
    await freePort();
    await expect(freePort()).rejects.toThrow('no port left that was not handed out before');
    expect(Math.random).toHaveBeenCalledTimes(51);
  });

  it("reads where the system range starts, and takes Linux's default where it cannot", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'port-range-'));
    fs.writeFileSync(path.join(dir, 'range'), '20000\t30999\n');
    expect(systemRangeStart(path.join(dir, 'range'))).toBe(20_000);
    expect(systemRangeStart(path.join(dir, 'missing'))).toBe(32_768);
    fs.rmSync(dir, { recursive: true });
  });
});
