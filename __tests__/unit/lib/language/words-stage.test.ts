import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { languagesParameter, listAsHeader } from '@lib/language/list-as-header';
import { wordsStage } from '@lib/language/words-stage';
import { rawRequest } from '../../../support/http';

let server: Server;
let base: string;
const passedOn: string[] = [];

beforeAll(async () => {
  const stage = wordsStage(['en', 'fr', 'de', 'es', 'ar']);
  server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0]!;
    if (!stage(req, res, pathname)) {
      passedOn.push(pathname);
      res.end('next');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const words = async (languages: string) => {
  const answer = await rawRequest(base, `/_next/app-shell/words?languages=${encodeURIComponent(languages)}`);
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as {
    words: { lang: string; dir: string };
    screen: { kind: string; heading: string };
  };
};

describe('the client-exception words a browser asks for', () => {
  it('are those of the first of navigator.languages on offer, a region finding its language', async () => {
    expect((await words('fr-FR,en-US')).words.lang).toBe('fr');
    expect((await words('pt-BR,de-CH,fr')).words.lang).toBe('de');
    expect((await words('ar-EG')).words).toMatchObject({ lang: 'ar', dir: 'rtl' });
    const spanish = await words('es');
    expect(spanish.screen).toMatchObject({
      kind: 'client-exception',
      heading: 'Lo sentimos, esta página ha dejado de funcionar',
    });
  });

  it('take the order as the preference, even when a later entry names a language exactly', async () => {
    // navigator.languages has no weights: its order is the visitor's.
    expect((await words('fr-CH,de')).words.lang).toBe('fr');
  });

  it('are the default for no list, an unknown or a hostile one', async () => {
    for (const list of ['', 'xx', '*', ',,,;q=', Array.from({ length: 3000 }, () => 'zz').join(',') + ',fr'])
      expect((await words(list)).words.lang).toBe('en');
  });

  it('are kept by the browser for an hour, and only GET or HEAD', async () => {
    const answer = await rawRequest(base, '/_next/app-shell/words?languages=fr');
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'private, max-age=3600',
    });
    const head = await rawRequest(base, '/_next/app-shell/words?languages=fr', { method: 'HEAD' });
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(head.headers['content-length']).toBe(answer.headers['content-length']);
    expect(await rawRequest(base, '/_next/app-shell/words', { method: 'POST' })).toMatchObject({
      status: 405,
      headers: expect.objectContaining({ allow: 'GET, HEAD' }),
      body: 'Only GET.',
    });
  });

  it('leave every other path alone', async () => {
    await rawRequest(base, '/_next/app-shell/words/fr');
    expect(passedOn).toEqual(['/_next/app-shell/words/fr']);
  });
});

describe('languagesParameter', () => {
  it('is the list a page sent, as a header', () => {
    expect(languagesParameter('/_next/app-shell/words?languages=fr-CH,de')).toBe('fr-CH;q=1.00,de;q=0.99');
    expect(languagesParameter('/x?a=1&languages=de')).toBe('de;q=1.00');
  });

  it('is undefined when the page sent none, so the Accept-Language header decides', () => {
    for (const url of [undefined, '/x', '/x?', '/x?language=fr'])
      expect(languagesParameter(url)).toBeUndefined();
  });
});

describe('listAsHeader', () => {
  it('weighs each entry by its place', () => {
    expect(listAsHeader('fr-CH, de ,en')).toBe('fr-CH;q=1.00,de;q=0.99,en;q=0.98');
  });
});
