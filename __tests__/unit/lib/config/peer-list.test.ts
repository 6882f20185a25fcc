// FLEET_PEERS, one rule at a time: what each refused entry is told, and the edges of each bound.
import { MAX_PEER_SOURCES, peerList } from '@lib/config/peer-list';

const parse = (raw: string) => peerList.parse(raw);

describe('peerList reads', () => {
  it('a DNS name at the lowest and the highest port', () => {
    expect(parse('dns:peers:1,dns:peers.default.svc.cluster.local.:65535')).toEqual({
      value: [
        { kind: 'dns', name: 'peers', port: 1 },
        { kind: 'dns', name: 'peers.default.svc.cluster.local.', port: 65535 },
      ],
    });
  });

  it('a list with empty entries and a trailing comma, skipping the empty ones', () => {
    expect(parse('http://a:3000,, http://b:3000 ,')).toEqual({
      value: [
        { kind: 'url', base: 'http://a:3000' },
        { kind: 'url', base: 'http://b:3000' },
      ],
    });
  });

  it(`exactly ${MAX_PEER_SOURCES} peers`, () => {
    const raw = Array.from({ length: MAX_PEER_SOURCES }, (_, i) => `http://10.0.0.${i}:3000`).join(',');
    const parsed = parse(raw);
    expect('value' in parsed && parsed.value).toHaveLength(MAX_PEER_SOURCES);
  });
});

describe('peerList refuses, saying why', () => {
  it.each([
    ['dns:peers:0', '"dns:peers:0" is not dns:NAME:PORT'],
    ['dns:peers:65536', '"dns:peers:65536" is not dns:NAME:PORT'],
    // Five digits at most, and nothing after them.
    ['dns:peers:123456', '"dns:peers:123456" is not dns:NAME:PORT'],
    ['dns:peers:3000x', '"dns:peers:3000x" is not dns:NAME:PORT'],
    // The whole entry is one NAME:PORT: a second dns: inside it is not skipped over.
    ['dns:dns:peers:3000', '"dns:dns:peers:3000" is not dns:NAME:PORT'],
    ['dns:-peers:3000', '"dns:-peers:3000" is not dns:NAME:PORT'],
    ['peers:3000', '"peers:3000" must start with http://'],
    ['10.0.3.7:3000', '"10.0.3.7:3000" is neither a URL nor dns:NAME:PORT'],
    ['https://peer:3000', '"https://peer:3000" must start with http://'],
    // The refusal goes to the log: a password in the entry is not repeated.
    ['http://user@peer:3000', 'the peer at http://peer:3000 must not carry a user or a password'],
    ['http://:secret@peer:3000', 'the peer at http://peer:3000 must not carry a user or a password'],
    ['http://peer:3000/app', '"http://peer:3000/app" must be http://HOST:PORT with nothing after it'],
    ['http://peer:3000/?a=1', '"http://peer:3000/?a=1" must be http://HOST:PORT with nothing after it'],
    ['http://peer:3000/#a', '"http://peer:3000/#a" must be http://HOST:PORT with nothing after it'],
  ])('%s', (raw, why) => {
    expect(parse(`http://ok:3000,${raw}`)).toEqual({ problem: `has ${why}` });
  });

  it('a list of separators only', () => {
    expect(parse(' , ,')).toEqual({ problem: 'names no peer' });
  });

  it(`${MAX_PEER_SOURCES + 1} peers`, () => {
    const raw = Array.from({ length: MAX_PEER_SOURCES + 1 }, (_, i) => `http://10.0.0.${i}:3000`).join(',');
    expect(parse(raw)).toEqual({ problem: `must name at most ${MAX_PEER_SOURCES} peers` });
  });
});
