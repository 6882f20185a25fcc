/**
 * The balancer's pages: with every instance down, HAProxy answers with the build's own
 * "unavailable" screen (no JavaScript, no-store, Retry-After), and the page comes back by itself
 * once an instance answers again. A visitor with no service worker meets exactly this.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startBalancer, type Balancer } from '../support/balancer';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { freePort, startServer, type RunningServer } from '../support/server';
import { until } from '../support/until';

const ERROR_PAGES = path.join(ROOT, PRODUCTION_DIST, 'error-pages');
/** Debian's nginx, installed by scripts/ensure-test-tools.sh as HAProxy is. */
const NGINX_PATH = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

let browser: Browser;
let balancer: Balancer;
let server: RunningServer | null = null;
let port: number;

beforeAll(async () => {
  port = await freePort();
  server = await startServer({ distDir: PRODUCTION_DIST, port });
  balancer = await startBalancer({ app: server.url }, { errorPages: ERROR_PAGES });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await balancer?.stop();
  await server?.stop();
});

it('writes 502, 503 and 504 as HTML and as whole HAProxy answers, with no JavaScript', () => {
  for (const status of [502, 503, 504]) {
    const html = readFileSync(path.join(ERROR_PAGES, `${status}.html`), 'utf8');
    expect(html).toContain('<main class="es-main" data-screen="unavailable" lang="en" dir="ltr">');
    expect(html).not.toMatch(/<script|<link/i);
    const answer = readFileSync(path.join(ERROR_PAGES, `${status}.http`), 'utf8');
    expect(answer.startsWith(`HTTP/1.1 ${status} `)).toBe(true);
    expect(answer.endsWith(`\r\n\r\n${html}`)).toBe(true);
  }
});

it('shows the shell’s screen, not the balancer’s, for a visited page and a first visit while every instance is down; and the page comes back by itself', async () => {
  const visitor = await openWatchedPage(browser);
  const { page } = visitor;
  try {
    const first = await page.goto(`${balancer.url}/orders/42`);
    expect(first?.status()).toBe(404);

    await server!.stop();
    server = null;
    // Until the balancer's check (every 250 ms) has taken the stopped instance out.
    await until(
      async () => (await fetch(`${balancer.url}/api/health/live`).then((res) => res.status)) === 503,
      10_000,
      50,
    );

    // A reload of the page the visitor was on.
    const reloaded = await page.reload();
    expect(reloaded?.status()).toBe(503);
    expect(reloaded?.headers()).toMatchObject({ 'cache-control': 'no-store', 'retry-after': '5' });
    await page.locator('main[data-screen="unavailable"]').waitFor();
    expect(await page.locator('script').count()).toBe(0);

    // Another visitor's first visit.
    const newcomer = await openWatchedPage(browser);
    try {
      const response = await newcomer.page.goto(`${balancer.url}/`);
      expect(response?.status()).toBe(503);
      await newcomer.page.getByRole('heading', { name: 'Sorry, the service is unavailable' }).waitFor();
    } finally {
      await newcomer.close();
    }
    // A first visit from a French browser: the balancer answers in French (deploy/haproxy/haproxy.cfg).
    const french = await openWatchedPage(browser, {
      locale: 'fr-FR',
      extraHTTPHeaders: { 'Accept-Language': 'fr-FR,fr;q=0.9' },
    });
    try {
      const response = await french.page.goto(`${balancer.url}/`);
      expect(response?.status()).toBe(503);
      expect(response?.headers()).toMatchObject({ 'cache-control': 'no-store', 'retry-after': '5' });
      await french.page.getByRole('heading', { name: 'Désolé, le service est indisponible' }).waitFor();
      expect(await french.page.getAttribute('html', 'lang')).toBe('fr');
    } finally {
      await french.close();
    }

    server = await startServer({ distDir: PRODUCTION_DIST, port });
    // The screen asks again every 5 s (meta refresh, no JavaScript): back within 15 s of the server.
    await page.getByRole('heading', { name: 'Page not found' }).waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(`${balancer.url}/orders/42`);
  } finally {
    await visitor.close();
  }
});

describe('ingress-nginx’s default backend (deploy/kubernetes/error-pages/nginx.conf)', () => {
  let nginx: ChildProcess;
  let base: string;
  let folder: string;

  beforeAll(async () => {
    const nginxPort = await freePort();
    folder = mkdtempSync(path.join(tmpdir(), 'error-pages-nginx-'));
    // The deployed server block as it is, but for where it listens and where the pages are.
    const serverBlock = readFileSync(path.join(ROOT, 'deploy/kubernetes/error-pages/nginx.conf'), 'utf8')
      .replace(/listen 8080;/, `listen 127.0.0.1:${nginxPort};`)
      .replace(/alias \/pages\/;/, `alias ${ERROR_PAGES}/;`);
    const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
      .map((kind) => `${kind}_temp_path ${folder}/${kind};`)
      .join(' ');
    const config = `daemon off; master_process off; pid ${folder}/nginx.pid; error_log stderr;
events {}
http { access_log off; ${temp}
${serverBlock}
}
`;
    writeFileSync(path.join(folder, 'nginx.conf'), config);
    nginx = spawn(NGINX_PATH, ['-p', folder, '-c', path.join(folder, 'nginx.conf'), '-e', 'stderr'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    base = `http://127.0.0.1:${nginxPort}`;
    await until(
      async () => {
        if (nginx.exitCode !== null) throw new Error('nginx did not start');
        return (
          (await fetch(`${base}/healthz`).then(
            (res) => res.status,
            () => 0,
          )) === 200
        );
      },
      10_000,
      50,
    );
  });

  afterAll(async () => {
    if (nginx && nginx.exitCode === null) {
      const exited = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGTERM');
      await exited;
    }
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it.each([
    ['502', 502],
    ['503', 503],
    ['504', 504],
    // Only 502, 503 and 504 are sent to it; anything else is still an outage to the visitor.
    [undefined, 503],
  ])('answers X-Code %s with status %i and the build’s screen, not stored', async (code, status) => {
    const response = await fetch(`${base}/orders/42`, { headers: code ? { 'X-Code': code } : {} });
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('retry-after')).toBe('5');
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toBe(readFileSync(path.join(ERROR_PAGES, `${status}.html`), 'utf8'));
  });

  it.each(['/503.html', '/__error-pages/502.html', '/__error-pages/'])(
    'answers %s, a path of its own files, as an outage too',
    async (asked) => {
      const response = await fetch(`${base}${asked}`);
      expect(response.status).toBe(503);
      expect(await response.text()).toBe(readFileSync(path.join(ERROR_PAGES, '503.html'), 'utf8'));
    },
  );
});
