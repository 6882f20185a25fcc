// The transfer-coding rule against its reference, Node's own parser (llhttp): for every value of a
// corpus built from the grammar (RFC 9110 §5.6.1 lists, RFC 9112 §7 codings) and of a seeded random
// one, a real server says whether it reads a request's body; the rule must never refuse what llhttp
// reads (that would refuse a request Next serves), and refuses what llhttp refuses but for the few
// spellings named below, which the parser guard then answers (lib/server/guards.ts).
import http, { type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { transferCodingIsReadable } from '@lib/http/transfer-coding';
import { seededRandom } from '../../../support/seeded-random';

const SEED = 9112;

/** Values llhttp refuses that the rule lets through, on purpose (Node's header value trimmed or joined differently). */
const LOOSER: readonly string[][] = [['chunked\t'], ['', 'chunked']];

const CORPUS: string[][] = [
  ['chunked'],
  ['Chunked'],
  ['CHUNKED'],
  ['gzip, chunked'],
  ['gzip,chunked'],
  ['deflate ,  chunked'],
  [', chunked'],
  [',,chunked'],
  ['x, chunked'],
  ['chunked,'],
  ['chunked , '],
  ['chunked,,'],
  ['chunked;x=1'],
  ['chunked, chunked'],
  ['chunked, gzip'],
  ['xchunked'],
  ['chunkedx'],
  ['gzip'],
  ['identity'],
  ['"chunked"'],
  [''],
  ['gzip', 'chunked'],
  ['chunked', 'gzip'],
  ['chunked', 'chunked'],
  ...LOOSER,
];

/** Lists of the grammar's pieces, at random: codings, empty elements, white space, case. */
function randomValues(count: number): string[][] {
  const random = seededRandom(SEED);
  const element = () =>
    random.pick(['chunked', 'CHUNKED', 'gzip', 'deflate', 'identity', 'x', '', 'chunked;a=1', 'chunkedx']);
  const space = () => random.pick(['', ' ', '  ']);
  const list = () =>
    Array.from({ length: random.int(1, 4) }, () => `${space()}${element()}${space()}`).join(',');
  return Array.from({ length: count }, () => Array.from({ length: random.int(1, 2) }, list));
}

let server: Server;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('read'));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(() => server.close());

/** Whether llhttp reads a chunked POST sent with these Transfer-Encoding fields, and the value Node hands on. */
function llhttpReads(fields: string[]): Promise<{ reads: boolean; joined: string | undefined }> {
  return new Promise((resolve) => {
    let joined: string | undefined;
    const seen = (req: http.IncomingMessage) => (joined = req.headers['transfer-encoding']);
    server.once('request', seen);
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      server.off('request', seen);
      resolve({ reads: text.startsWith('HTTP/1.1 200 '), joined });
    });
    const head = fields.map((value) => `Transfer-Encoding: ${value}\r\n`).join('');
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${head}\r\n0\r\n\r\n`);
  });
}

const isLooser = (fields: string[]) =>
  LOOSER.some((looser) => JSON.stringify(looser) === JSON.stringify(fields));

describe('transferCodingIsReadable, against Node’s parser', () => {
  it('lets a request without Transfer-Encoding through', () => {
    expect(transferCodingIsReadable(undefined)).toBe(true);
  });

  it.each([...CORPUS, ...randomValues(200)].map((fields) => [JSON.stringify(fields), fields]))(
    'agrees with llhttp on %s',
    async (_name, fields) => {
      const { reads, joined } = await llhttpReads(fields);
      // What the rule reads is the value Node hands the server: the fields joined, or none when
      // llhttp refused the request before its headers were through.
      const ours = transferCodingIsReadable(joined ?? fields.join(', '));
      if (reads) expect(ours).toBe(true);
      else if (!isLooser(fields)) expect(ours).toBe(false);
    },
  );

  it('keeps its list of looser spellings true: llhttp refuses each, and the rule lets each through', async () => {
    for (const fields of LOOSER) {
      expect((await llhttpReads(fields)).reads).toBe(false);
      expect(transferCodingIsReadable(fields.join(', '))).toBe(true);
    }
  });
});
