// The development loop, side by side: this app's `npm run dev` against bare `next dev` (Turbopack,
// Next's default), each in a copy laid out as a newcomer's checkout (this repository's files, or a
// bare app's, with node_modules shared by hard links: scripts/lib/shared-install.js), serving the
// same one product page, rendered per request. Each round, for each of the two in turn (the order
// swapped every round, so drift on a shared machine favours neither):
//   - a first start, nothing built (no .next; for this app no dist/ either), to the page's first 200;
//   - a restart, with what that start left (the compiled server, Next's caches), to the same: the
//     start a developer makes many times a day;
//   - hot reloads in that second session: the page open in Chromium, its file edited, time from the
//     write to the new words in the same document (no reload: Fast Refresh), seen by a
//     MutationObserver in the page and stamped with the same clock as the write.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { chromium } = require('playwright-core');
const { CHROMIUM_ARGS, CHROMIUM_PATH } = require('../../scripts/lib/chromium.js');
const { startServerProcess } = require('../../scripts/lib/server-process.js');
const { shareInstall } = require('../../scripts/lib/shared-install.js');
const { NEXT_BIN, ROOT } = require('./builds.js');

/** The product page, the same file in both apps: rendered per request, with state to keep. */
const PAGE_FILE = 'pages/dev-loop.tsx';
const PAGE_PATH = '/dev-loop';
const FIRST_WORDS = 'A product page';

/** @param {string} words */
function pageSource(words) {
  return `import { useState } from 'react';

export const getServerSideProps = () => ({ props: { renderedAt: new Date().toISOString() } });

export default function DevLoop({ renderedAt }: { renderedAt: string }) {
  const [count, setCount] = useState(0);
  return (
    <main>
      <h1>${words}</h1>
      <p>Rendered at {renderedAt}.</p>
      <button type="button" onClick={() => setCount(count + 1)}>
        Counted {count}
      </button>
    </main>
  );
}
`;
}

/**
 * The tsconfig.json `next dev` writes into a TypeScript app that has none, written beforehand so
 * that no start of bare Next is timed writing it (this app has its own).
 */
const BARE_TSCONFIG = {
  compilerOptions: {
    target: 'ES2017',
    lib: ['dom', 'dom.iterable', 'esnext'],
    allowJs: true,
    skipLibCheck: true,
    strict: false,
    noEmit: true,
    incremental: true,
    module: 'esnext',
    esModuleInterop: true,
    moduleResolution: 'bundler',
    resolveJsonModule: true,
    isolatedModules: true,
    jsx: 'react-jsx',
  },
  include: ['next-env.d.ts', '**/*.mts', '**/*.ts', '**/*.tsx'],
  exclude: ['node_modules'],
};

/** This repository's files as a clean clone has them (tracked, and new files not ignored). */
function copyCheckout(/** @type {string} */ to) {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(ROOT, file);
    if (!fs.existsSync(from)) continue;
    fs.mkdirSync(path.dirname(path.join(to, file)), { recursive: true });
    fs.cpSync(from, path.join(to, file));
  }
}

/**
 * @typedef {object} DevApp
 * @property {'shell' | 'bare'} kind
 * @property {string} dir
 * @property {() => void} forget  removes what a start builds, for a first start
 * @property {() => Promise<import('../../scripts/lib/server-process.js').ServerProcess>} start
 */

/**
 * A development server, timed from its command to the product page's first 200.
 * @param {{ command: string, args: string[], cwd: string, env?: Record<string, string> }} options
 */
function startDev({ command, args, cwd, env = {} }) {
  return startServerProcess({ command, args, cwd, env, readyPath: PAGE_PATH, timeoutMs: 240_000 });
}

/** @param {string} work @returns {DevApp} */
function layShell(work) {
  const dir = path.join(work, 'shell');
  copyCheckout(dir);
  shareInstall(dir, path.join(ROOT, 'node_modules'));
  fs.writeFileSync(path.join(dir, PAGE_FILE), pageSource(FIRST_WORDS));
  return {
    kind: 'shell',
    dir,
    forget: () => {
      for (const built of ['.next', 'dist'])
        fs.rmSync(path.join(dir, built), { recursive: true, force: true });
    },
    start: () => startDev({ command: 'npm', args: ['run', 'dev'], cwd: dir, env: { HOST: '127.0.0.1' } }),
  };
}

/** @param {string} work @returns {DevApp} */
function layBare(work) {
  const dir = path.join(work, 'bare');
  fs.mkdirSync(path.join(dir, 'pages'), { recursive: true });
  shareInstall(dir, path.join(ROOT, 'node_modules'));
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bare-dev', private: true }));
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify(BARE_TSCONFIG, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'next.config.js'), 'module.exports = {};\n');
  fs.writeFileSync(path.join(dir, PAGE_FILE), pageSource(FIRST_WORDS));
  return {
    kind: 'bare',
    dir,
    forget: () => fs.rmSync(path.join(dir, '.next'), { recursive: true, force: true }),
    start: () =>
      startDev({
        command: process.execPath,
        args: [NEXT_BIN, 'dev', '-H', '127.0.0.1', '-p', '{port}'],
        cwd: dir,
      }),
  };
}

/**
 * @param {() => boolean | Promise<boolean>} condition @param {number} timeoutMs @param {string} what
 */
async function until(condition, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`dev loop: ${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Opens the page, waits until it is hydrated and its hot-reload socket has spoken, then edits the
 * page's file `edits` times; each edit's time to its words in the document.
 * @param {import('playwright-core').Browser} browser @param {DevApp} app @param {string} url
 * @param {number} edits @param {number} round
 * @returns {Promise<number[]>}
 */
async function hotReloads(browser, app, url, edits, round) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    let connected = false;
    page.on('console', (message) => {
      if (message.text() === '[HMR] connected') connected = true;
    });
    await page.goto(`${url}${PAGE_PATH}`);
    const button = page.getByRole('button', { name: /Counted/ });
    // A click counts only once React has hydrated the page; the count is the state to keep.
    await until(
      async () => {
        if ((await button.innerText()) === 'Counted 0') await button.click();
        return (await button.innerText()) === 'Counted 1';
      },
      60_000,
      `${app.kind}: hydration`,
    );
    await until(() => connected, 60_000, `${app.kind}: the hot-reload socket`);
    // Connected is not yet subscribed to the page's updates: an edit that soon can be missed, or
    // end in a full reload. Not timed, so generous.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // Gone if an edit reloads the document instead of refreshing it.
    await page.evaluate(() => {
      /** @type {{ __sameDocument?: boolean }} */ (window).__sameDocument = true;
    });
    /** @type {number[]} */
    const times = [];
    for (let edit = 1; edit <= edits; edit += 1) {
      const words = `Edited in round ${round}, edit ${edit}`;
      await page.evaluate((expected) => {
        const seen = window;
        /** @type {{ __editSeenAt?: number }} */ (seen).__editSeenAt = undefined;
        new MutationObserver((_records, observer) => {
          if (document.querySelector('h1')?.textContent === expected) {
            /** @type {{ __editSeenAt?: number }} */ (seen).__editSeenAt = Date.now();
            observer.disconnect();
          }
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      }, words);
      const editedAt = Date.now();
      fs.writeFileSync(path.join(app.dir, PAGE_FILE), pageSource(words));
      await until(
        () =>
          page.evaluate(() => /** @type {{ __editSeenAt?: number }} */ (window).__editSeenAt !== undefined),
        60_000,
        `${app.kind}: edit ${edit}`,
      );
      const seenAt = await page.evaluate(
        () => /** @type {{ __editSeenAt?: number }} */ (window).__editSeenAt,
      );
      const same = await page.evaluate(
        () => /** @type {{ __sameDocument?: boolean }} */ (window).__sameDocument,
      );
      if (!same || (await button.innerText()) !== 'Counted 1')
        throw new Error(`dev loop: ${app.kind} reloaded the page or lost its state on edit ${edit}`);
      times.push(/** @type {number} */ (seenAt) - editedAt);
      // Whatever the bundler does after an update settles before the next edit.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    return times;
  } finally {
    await context.close();
  }
}

/**
 * @param {{ rounds: number, edits: number, progress: (message: string) => void }} options
 * @returns {Promise<{ shell: import('./dev-loop-figures.js').Samples, bare: import('./dev-loop-figures.js').Samples }>}
 */
async function measureDevLoop({ rounds, edits, progress }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'app-shell-dev-loop-'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
    headless: true,
  });
  try {
    const apps = [layShell(work), layBare(work)];
    /** @type {Record<'shell' | 'bare', import('./dev-loop-figures.js').Samples>} */
    const samples = {
      shell: { firstStart: [], restart: [], hotReload: [] },
      bare: { firstStart: [], restart: [], hotReload: [] },
    };
    for (let round = 1; round <= rounds; round += 1) {
      for (const app of round % 2 ? apps : [...apps].reverse()) {
        fs.writeFileSync(path.join(app.dir, PAGE_FILE), pageSource(FIRST_WORDS));
        app.forget();
        const first = await app.start();
        samples[app.kind].firstStart.push(first.readyAfterMs);
        await first.stop();
        const again = await app.start();
        samples[app.kind].restart.push(again.readyAfterMs);
        try {
          samples[app.kind].hotReload.push(...(await hotReloads(browser, app, again.url, edits, round)));
        } finally {
          await again.stop();
        }
        const last = samples[app.kind];
        progress(
          `dev loop round ${round}/${rounds}, ${app.kind}: first start ${Math.round(first.readyAfterMs)} ms, ` +
            `restart ${Math.round(again.readyAfterMs)} ms, hot reloads ${last.hotReload.slice(-edits).join(', ')} ms`,
        );
      }
    }
    return samples;
  } finally {
    await browser.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

module.exports = { measureDevLoop, pageSource };
