// Sends bytes exactly as given over a fresh TCP connection and reads one HTTP response back, so the
// server sees what an attacker could send, not what a well-behaved client library would.
import { connect } from 'node:net';

export interface RawAnswer {
  /** 0 when the connection closed without an answer. */
  status: number;
  headers: Record<string, string[]>;
  body: string;
  ms: number;
}

export function sendRaw(port: number, request: Buffer | string, timeoutMs = 10_000): Promise<RawAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = split === -1 ? text : text.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string[]> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon === -1) continue;
        const name = line.slice(0, colon).trim().toLowerCase();
        (headers[name] ??= []).push(line.slice(colon + 1).trim());
      }
      resolve({
        status: Number(statusLine.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0),
        headers,
        body: split === -1 ? '' : text.slice(split + 4),
        ms: performance.now() - started,
      });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      // One response is all we wait for: stop once its body is complete.
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      if (split === -1) return;
      const length = text.slice(0, split).match(/\r\ncontent-length:\s*(\d+)/i)?.[1];
      if (length !== undefined && Buffer.byteLength(text.slice(split + 4), 'latin1') >= Number(length))
        finish();
      if (/^HTTP\/1\.[01] (204|304)/.test(text)) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
    socket.setTimeout(timeoutMs, finish);
    socket.write(request);
  });
}

/** A request with `Connection: close`, built from parts; the target and headers go out byte for byte. */
export function buildRequest({
  method = 'GET',
  target,
  host = '127.0.0.1',
  headers = [],
  body,
}: {
  method?: string;
  target: string;
  host?: string | null;
  headers?: [string, string][];
  body?: string;
}): Buffer {
  const lines = [`${method} ${target} HTTP/1.1`];
  if (host !== null) lines.push(`Host: ${host}`);
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body, 'latin1')}`);
  lines.push('Connection: close');
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`, 'latin1');
}
