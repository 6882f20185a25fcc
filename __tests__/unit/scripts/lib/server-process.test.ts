// scripts/lib/server-process.js, which every e2e test and the bench start servers with: a port it
// chose that was taken before the server listened is chosen again; one the caller chose is left to
// the caller, told apart from other failures.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PortTaken, startServerProcess } from '../../../../scripts/lib/server-process';

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
});

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
  await expect(failed).rejects.toThrow(/exited \(1\)\n.*failed/);
});
