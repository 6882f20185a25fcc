// Every environment variable the app reads, once: its name, when it is read, its default, the values
// it accepts and what it means. The readers (./settings.ts at start, ./build-time.ts at build,
// scripts/source-maps.ts) take their values through `readVariable`; `.env.example` and
// docs/configuration.md are rendered from this table, and a unit test fails when they, or a
// `process.env.X` anywhere in the code, disagree with it. Adding a setting is one row and its use.

import { withoutUrlSecrets } from './without-url-secrets';
import type { Check } from './check';
import { LANGUAGE_COPY } from '../screens/languages';
import { peerList } from './peer-list';

export type Env = Record<string, string | undefined>;

export type { Check, Parsed } from './check';

export type ReadAt = 'build' | 'start' | 'build and start';

export interface Variable<T, R extends ReadAt = ReadAt> {
  name: string;
  /** `build`: baked into the bundles by `npm run build`; `start`: read by `npm start`. */
  readAt: R;
  group: Group;
  meaning: string;
  check: Check<T>;
  /** What an unset or empty variable gives, maybe from other variables. */
  fallback: (env: Env) => T;
  /** The fallback as the reference shows it. */
  defaultText: string;
}

export const GROUPS = {
  reporting: 'Error reporting',
  sourceMaps:
    'Source maps (with all of SENTRY_AUTH_TOKEN, SENTRY_ORG and SENTRY_PROJECT, `npm run build` uploads them)',
  screens: 'What the error screens say',
  build: 'Build',
  server: 'Server',
  health: 'Health',
  observability: 'Logs and metrics',
  fleet: 'Rolling updates: peers and carried files (docs/fleet.md)',
  pageCache: 'Page cache shared by the fleet (docs/page-cache.md)',
} as const;
type Group = keyof typeof GROUPS;

export function wholeNumber(min: number, max: number): Check<number> {
  return {
    accepts: `a whole number from ${min} to ${max}`,
    parse: (raw) => {
      const value = Number(raw);
      return Number.isInteger(value) && value >= min && value <= max
        ? { value }
        : { problem: `must be a whole number from ${min} to ${max}` };
    },
  };
}

export function decimal(min: number, max: number): Check<number> {
  return {
    accepts: `a number from ${min} to ${max}`,
    parse: (raw) => {
      const value = Number(raw);
      return Number.isFinite(value) && value >= min && value <= max
        ? { value }
        : { problem: `must be a number from ${min} to ${max}` };
    },
  };
}

export const text: Check<string> = { accepts: 'any text', parse: (raw) => ({ value: raw }) };

export function oneOf<const T extends string>(...choices: T[]): Check<T> {
  return {
    accepts: choices.map((choice) => `\`${choice}\``).join(' or '),
    parse: (raw) =>
      (choices as string[]).includes(raw)
        ? { value: raw as T }
        : { problem: `must be ${choices.join(' or ')}` },
  };
}

const KNOWN_LANGUAGES = Object.keys(LANGUAGE_COPY);

/** One language the screens have words in. */
const oneLanguage: Check<string> = {
  accepts: `one of ${KNOWN_LANGUAGES.join(', ')}`,
  parse: (raw) =>
    KNOWN_LANGUAGES.includes(raw)
      ? { value: raw }
      : { problem: `must be one of ${KNOWN_LANGUAGES.join(', ')} (lib/screens/)` },
};

/** Languages the screens have words in, comma-separated, each once. */
const languageList: Check<string[]> = {
  accepts: `a comma-separated list of ${KNOWN_LANGUAGES.join(', ')}`,
  parse: (raw) => {
    const languages = raw.split(',').map((language) => language.trim());
    const unknown = languages.filter((language) => !KNOWN_LANGUAGES.includes(language));
    if (unknown.length > 0)
      return {
        problem: `names ${unknown.map((language) => JSON.stringify(language)).join(', ')}, which has no words in lib/screens/ (there are ${KNOWN_LANGUAGES.join(', ')})`,
      };
    if (new Set(languages).size !== languages.length) return { problem: 'names a language twice' };
    return { value: languages };
  },
};

interface Row<T, R extends ReadAt, F> {
  name: string;
  readAt: R;
  group: Group;
  meaning: string;
  check: Check<T>;
  /** The value of an unset variable, or how to find it from the others (then say how in defaultText). */
  fallback: F | ((env: Env) => F);
  defaultText?: string;
}

/** A row, its value's type inferred from its check and fallback (`null`: unset means none). */
function variable<T, const R extends ReadAt, const F extends T | null>(
  row: Row<T, R, F>,
): Variable<T | F, R> {
  const { fallback } = row;
  return {
    ...row,
    fallback: typeof fallback === 'function' ? (fallback as (env: Env) => F) : () => fallback,
    defaultText: row.defaultText ?? (fallback === null ? 'none' : String(fallback)),
  };
}

/**
 * Loaded only to check a DSN that is set (docs/own-server.md, "Start time"). A synchronous
 * require, because the checks run synchronously while the configuration is read.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see above
const sentryCore = (): typeof import('@sentry/core') => require('@sentry/core');

/** Sentry's DSN parser, without the console line it prints for a DSN it cannot parse. */
function parsesAsDsn(raw: string): boolean {
  const { dsnFromString } = sentryCore();
  // Our own sentence names the problem (and does not repeat the DSN).
  const saved = console.error;
  console.error = () => {};
  try {
    return dsnFromString(raw) !== undefined;
  } finally {
    console.error = saved;
  }
}

/** The hand-off secret: long enough not to be guessed, never repeated in a problem. */
export const HANDOFF_SECRET_MIN_CHARS = 32;
/**
 * …and varied enough: its length times the Shannon entropy of its characters' frequencies, in bits.
 * This catches `aaaa…` (0), `abab…` (32) and `abcd…` (64), which the length alone lets through; it
 * cannot see a longer pattern repeated, nor know how a secret was made. 80 and not more: of random
 * 32-character hex strings, 1 in 1,000 falls below 100 (0 in 10,000 below 80 measured, 2 in 10⁹
 * computed), and `openssl rand -hex 32` never comes near (221 or more in 10,000).
 */
export const HANDOFF_SECRET_MIN_BITS = 80;

/** `text`'s length times the Shannon entropy of its characters' frequencies, in bits. */
export function varietyBits(text: string): number {
  const characters = [...text];
  const counts = new Map<string, number>();
  for (const character of characters) counts.set(character, (counts.get(character) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= count * Math.log2(count / characters.length);
  return bits;
}

export const handoffSecret: Check<string> = {
  accepts: `at least ${HANDOFF_SECRET_MIN_CHARS} characters, varied enough for ${HANDOFF_SECRET_MIN_BITS} bits by their frequencies (length × Shannon entropy: random hex passes, a repeated \`abcd\` fails); \`openssl rand -hex 32\``,
  echo: false,
  // Unset, the hand-off is off, and nothing says so until a stop loses what waited.
  blank: { refused: 'set a secret (`openssl rand -hex 32`) or unset it' },
  parse: (raw) => {
    if (raw.length < HANDOFF_SECRET_MIN_CHARS)
      return { problem: `must be at least ${HANDOFF_SECRET_MIN_CHARS} characters` };
    if (varietyBits(raw) < HANDOFF_SECRET_MIN_BITS)
      return {
        problem: `repeats too few characters to be a secret (under ${HANDOFF_SECRET_MIN_BITS} bits by their frequencies): use \`openssl rand -hex 32\``,
      };
    return { value: raw };
  },
};

export const dsn: Check<string> = {
  accepts: 'a public DSN, https://KEY@host/PROJECT_ID',
  echo: false,
  parse: (raw) => {
    const url = URL.parse(raw);
    if (!url) return { problem: 'is malformed: it is not a URL' };
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      return { problem: 'is malformed: it must start with https://' };
    if (!url.username) return { problem: 'is malformed: it has no public key (https://KEY@host/PROJECT_ID)' };
    if (url.password) return { problem: 'is malformed: it contains a secret key; use the public DSN' };
    // Sentry's own parser has the last word on the rest (host, project id).
    return parsesAsDsn(raw)
      ? { value: raw }
      : { problem: 'is malformed: Sentry cannot parse it (expected https://KEY@host/PROJECT_ID)' };
  },
};

// A single path segment, so it cannot shadow a page folder, and not one of the paths Next answers
// itself (`/_next`, `/_error` and the like cannot match: the segment starts with a letter or digit).
const TUNNEL_PATH = /^\/[A-Za-z0-9][A-Za-z0-9_-]{2,63}$/;
const RESERVED_PATHS = ['/api', '/404', '/500'];

export const tunnelPath: Check<string> = {
  accepts: 'one path segment of 3-64 letters, digits, - or _, such as /t7q2x',
  parse: (raw) =>
    TUNNEL_PATH.test(raw) && !RESERVED_PATHS.includes(raw.toLowerCase())
      ? { value: raw }
      : { problem: 'must be one path segment of 3-64 letters, digits, - or _, such as /t7q2x' },
};

/** Folders, comma-separated; each must exist when the build reads it (scripts/carry-static.ts checks). */
export const folderList: Check<string[]> = {
  accepts: 'comma-separated folders',
  parse: (raw) => {
    const folders = raw
      .split(',')
      .map((folder) => folder.trim())
      .filter(Boolean);
    return folders.length > 0 ? { value: folders } : { problem: 'names no folder' };
  },
};

/** A Redis or Valkey URL; its password is never repeated in a problem. */
export const storeUrl: Check<string> = {
  accepts: 'a redis:// or rediss:// URL of Redis or Valkey, such as redis://:PASSWORD@valkey:6379/0',
  echo: false,
  parse: (raw) => {
    const url = URL.parse(raw);
    if (!url) return { problem: 'is malformed: it is not a URL' };
    if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
      return { problem: 'must start with redis:// or rediss:// (TLS)' };
    if (!url.hostname) return { problem: 'names no host' };
    const database = url.pathname.replace(/^\//, '');
    if (database !== '' && !/^\d{1,2}$/.test(database))
      return { problem: 'names a database that is not a number (redis://host:6379/0)' };
    return { value: raw };
  },
};

export const VARIABLES = {
  // --- Error reporting ---
  sentryDsn: variable({
    name: 'SENTRY_DSN',
    readAt: 'build and start',
    group: 'reporting',
    meaning:
      "Where errors are reported. Without it, browsers download no Sentry code and each server error is one JSON line on stderr. At start it must equal the build's, or be unset.",
    check: dsn,
    fallback: null,
  }),
  sentryInDevelopment: variable({
    name: 'SENTRY_IN_DEVELOPMENT',
    readAt: 'build and start',
    group: 'reporting',
    meaning:
      "`1`: `npm run dev` reports to SENTRY_DSN like a production server. Otherwise a development server sends nothing: its server errors are one JSON line on stderr, browsers load no Sentry code, and Next's overlay shows each error. No effect on `npm run build` or `npm start`.",
    check: oneOf('0', '1'),
    fallback: '0',
  }),
  sentryEnvironment: variable({
    name: 'SENTRY_ENVIRONMENT',
    readAt: 'build',
    group: 'reporting',
    meaning: 'The environment reports carry.',
    check: text,
    fallback: null,
    defaultText: '`production` (`development` under `npm run dev`)',
  }),
  sentryRelease: variable({
    name: 'SENTRY_RELEASE',
    readAt: 'build',
    group: 'reporting',
    meaning: "The release browser and server reports and health's releaseId carry.",
    check: text,
    fallback: null,
    defaultText: 'the git commit, else the package version',
  }),
  sentryTunnelPath: variable({
    name: 'SENTRY_TUNNEL_PATH',
    readAt: 'build',
    group: 'reporting',
    meaning: 'The same-origin path browsers send reports to (docs/tunnel.md).',
    check: tunnelPath,
    fallback: null,
    defaultText: 'a hash of the DSN, such as /a3awwd',
  }),
  sentryTracesSampleRate: variable({
    name: 'SENTRY_TRACES_SAMPLE_RATE',
    readAt: 'build',
    group: 'reporting',
    meaning:
      "The share of page views traced (page load and navigation transactions with Web Vitals, one trace with the server's transaction), decided before any tracing code loads. At 0 no browser downloads tracing code and the server makes no transactions (docs/performance.md).",
    check: decimal(0, 1),
    fallback: 0,
  }),
  reportQueueDir: variable({
    name: 'REPORT_QUEUE_DIR',
    readAt: 'start',
    group: 'reporting',
    meaning:
      'A folder where reports wait while the ingest is away, so a restart keeps them (on Kubernetes a volume that outlives the container); unset, they wait in memory (docs/report-queue.md). Checked at start within 5 s: one that cannot be used stops the start; one that fails for a while (a full disk) leaves them in memory.',
    check: text,
    fallback: null,
  }),
  reportQueueMaxBytes: variable({
    name: 'REPORT_QUEUE_MAX_BYTES',
    readAt: 'start',
    group: 'reporting',
    meaning:
      "The most bytes of reports that wait, on disk or in memory; the server's own and browsers' each have half.",
    check: wholeNumber(1024 * 1024, 16 * 1024 * 1024 * 1024),
    fallback: 64 * 1024 * 1024,
  }),
  reportQueueMaxEnvelopes: variable({
    name: 'REPORT_QUEUE_MAX_ENVELOPES',
    readAt: 'start',
    group: 'reporting',
    meaning: "The most reports (envelopes) that wait; the server's own and browsers' each have half.",
    check: wholeNumber(2, 1_000_000),
    fallback: 10_000,
  }),
  reportQueueMaxAgeSeconds: variable({
    name: 'REPORT_QUEUE_MAX_AGE_SECONDS',
    readAt: 'start',
    group: 'reporting',
    meaning: 'How long a report may wait before it is dropped unsent.',
    check: wholeNumber(60, 30 * 24 * 60 * 60),
    fallback: 24 * 60 * 60,
  }),
  reportHandoffSecret: variable({
    name: 'REPORT_HANDOFF_SECRET',
    readAt: 'start',
    group: 'reporting',
    meaning:
      'A secret every instance of the deployment shares (on Kubernetes from a Secret): with it and FLEET_PEERS, an instance that stops with reports still waiting hands them to a peer, and takes those its peers hand it; a request without it is refused. Unset, reports waiting at a stop stay in REPORT_QUEUE_DIR (docs/report-queue.md).',
    check: handoffSecret,
    fallback: null,
  }),
  reportHandoffTimeoutMs: variable({
    name: 'REPORT_HANDOFF_TIMEOUT_MS',
    readAt: 'start',
    group: 'reporting',
    meaning:
      "The most a stopping instance spends handing its waiting reports to peers, after the flush; what is not handed over by then stays in its folder. Counted in the pod's grace period.",
    check: wholeNumber(100, 60_000),
    fallback: 5000,
  }),
  // --- Source maps ---
  sentryAuthToken: variable({
    name: 'SENTRY_AUTH_TOKEN',
    readAt: 'build',
    group: 'sourceMaps',
    meaning: 'A Sentry token allowed to upload; in CI a secret, never committed.',
    check: text,
    fallback: null,
  }),
  sentryOrg: variable({
    name: 'SENTRY_ORG',
    readAt: 'build',
    group: 'sourceMaps',
    meaning: 'The Sentry organisation slug.',
    check: text,
    fallback: null,
  }),
  sentryProject: variable({
    name: 'SENTRY_PROJECT',
    readAt: 'build',
    group: 'sourceMaps',
    meaning: 'The Sentry project slug.',
    check: text,
    fallback: null,
  }),
  sentryUrl: variable({
    name: 'SENTRY_URL',
    readAt: 'build',
    group: 'sourceMaps',
    meaning: "A self-hosted Sentry's address.",
    check: text,
    fallback: null,
    defaultText: 'sentry.io',
  }),
  // --- Error screens ---
  serviceName: variable({
    name: 'NEXT_PUBLIC_SERVICE_NAME',
    readAt: 'build',
    group: 'screens',
    meaning: "The service's name, in every screen's title.",
    check: text,
    fallback: 'This service',
  }),
  homeHref: variable({
    name: 'NEXT_PUBLIC_HOME_HREF',
    readAt: 'build',
    group: 'screens',
    meaning: 'A page that exists, for the screens\' "home" link; none while the page set is empty.',
    check: text,
    fallback: null,
  }),
  contactHref: variable({
    name: 'NEXT_PUBLIC_CONTACT_HREF',
    readAt: 'build',
    group: 'screens',
    meaning: 'Where people can get help (a URL or mailto:), linked from the error screens.',
    check: text,
    fallback: null,
  }),
  contactLabel: variable({
    name: 'NEXT_PUBLIC_CONTACT_LABEL',
    readAt: 'build',
    group: 'screens',
    meaning: 'The words of that link, in every language; unset, each language\'s own ("contact us").',
    check: text,
    fallback: null,
  }),
  screenLanguages: variable({
    name: 'SCREEN_LANGUAGES',
    readAt: 'build',
    group: 'screens',
    meaning:
      'The languages the screens are offered in, comma-separated: each needs a folder of words in lib/screens/ (docs/error-screens.md). The server picks one from Accept-Language, the browser from navigator.languages.',
    check: languageList,
    fallback: (): string[] => ['en', 'fr', 'de', 'es', 'ar'],
    defaultText: 'en,fr,de,es,ar',
  }),
  screenDefaultLanguage: variable({
    name: 'SCREEN_DEFAULT_LANGUAGE',
    readAt: 'build',
    group: 'screens',
    meaning:
      "The language of a screen when none of the visitor's is offered (and of the balancer's pages); one of SCREEN_LANGUAGES.",
    check: oneLanguage,
    fallback: 'en',
  }),
  // --- Build ---
  distDir: variable({
    name: 'NEXT_DIST_DIR',
    readAt: 'build and start',
    group: 'build',
    meaning: "The build's folder, relative to the app.",
    check: text,
    fallback: '.next',
  }),
  output: variable({
    name: 'NEXT_OUTPUT',
    readAt: 'build',
    group: 'build',
    meaning: 'Build the self-contained server folder the container image runs (the Dockerfile sets it).',
    check: oneOf('standalone'),
    fallback: null,
  }),
  typecheck: variable({
    name: 'NEXT_TYPECHECK',
    readAt: 'build',
    group: 'build',
    meaning:
      '`off`: `next build` skips its own TypeScript check (about a third of a build here), for sources already checked: by `npm run typecheck`, or by an earlier build of the same commit (the test suites build a dozen times and check once). Errors in what is built then go unnoticed by the build.',
    check: oneOf('on', 'off'),
    fallback: 'on',
  }),
  traces: variable({
    name: 'NEXT_TRACES',
    readAt: 'build',
    group: 'build',
    meaning:
      "`off`: `next build` writes no file traces (the `*.nft.json` files listing what each page's server code requires, which only the standalone folder is made from), in about half the time here; `npm start` never reads them. Refused with `NEXT_OUTPUT=standalone`, which needs them. The test suites' builds for `npm start` set it.",
    check: oneOf('on', 'off'),
    fallback: 'on',
  }),
  serviceWorker: variable({
    name: 'SERVICE_WORKER',
    readAt: 'build',
    group: 'build',
    meaning:
      '`on`: pages register the service worker that shows the offline and unavailable screens when a navigation cannot reach the app (docs/unavailable-screens.md). `off`: pages register nothing, and the worker a visitor already has is replaced by one that unregisters itself and deletes its caches. Never registered under `npm run dev`.',
    check: oneOf('on', 'off'),
    fallback: 'on',
  }),
  // --- Server ---
  port: variable({
    name: 'PORT',
    readAt: 'start',
    group: 'server',
    meaning: 'The port to listen on; 0 picks a free one.',
    check: wholeNumber(0, 65535),
    fallback: 3000,
  }),
  host: variable({
    name: 'HOST',
    readAt: 'start',
    group: 'server',
    // Not HOSTNAME: Docker and Kubernetes set HOSTNAME to the container's name.
    meaning:
      "The address to listen on, and the management listener too: one of this machine's (0.0.0.0 for all of them), or a name that resolves to one; any other stops the start in one line.",
    check: text,
    fallback: '0.0.0.0',
  }),
  drainMs: variable({
    name: 'SHUTDOWN_DRAIN_MS',
    readAt: 'start',
    group: 'server',
    // Behind a Kubernetes Service, endpoints take a few seconds to forget a terminating pod.
    meaning: 'How long to keep serving after SIGTERM while readiness says 503.',
    check: wholeNumber(0, 600_000),
    fallback: (env: Env) => (env.KUBERNETES_SERVICE_HOST ? 5000 : 0),
    defaultText: '5000 on Kubernetes (KUBERNETES_SERVICE_HOST set), else 0',
  }),
  shutdownTimeoutMs: variable({
    name: 'SHUTDOWN_TIMEOUT_MS',
    readAt: 'start',
    group: 'server',
    meaning: 'How long requests in flight may take once the server stops accepting.',
    check: wholeNumber(0, 600_000),
    fallback: 10_000,
  }),
  keepAliveTimeoutMs: variable({
    name: 'KEEP_ALIVE_TIMEOUT_MS',
    readAt: 'start',
    group: 'server',
    // Longer than the idle timeout of common load balancers (60 s), so they close first.
    meaning: 'How long an idle keep-alive connection stays open.',
    check: wholeNumber(1000, 600_000),
    fallback: 65_000,
  }),
  headersTimeoutMs: variable({
    name: 'HEADERS_TIMEOUT_MS',
    readAt: 'start',
    group: 'server',
    // A client that has not sent its headers in 10 s is a socket held open on purpose (Node: 60 s).
    meaning: 'How long a client may take to send its headers before it gets 408; at most REQUEST_TIMEOUT_MS.',
    check: wholeNumber(1000, 120_000),
    fallback: 10_000,
  }),
  requestTimeoutMs: variable({
    name: 'REQUEST_TIMEOUT_MS',
    readAt: 'start',
    group: 'server',
    // Room for a large upload on a slow line; Node's default is 300 s.
    meaning:
      'How long a client may take to send a whole request, its body included (408 past it, on every route and while draining).',
    check: wholeNumber(1000, 600_000),
    fallback: 30_000,
  }),
  maxConnections: variable({
    name: 'MAX_CONNECTIONS',
    readAt: 'start',
    group: 'server',
    meaning:
      'Open connections at most; at the limit the one idle the longest is closed to admit a new one, or with none idle the one whose request body has been arriving the longest (408).',
    check: wholeNumber(1, 1_000_000),
    fallback: 2048,
  }),
  connectionsCheckIntervalMs: variable({
    name: 'CONNECTIONS_CHECK_INTERVAL_MS',
    readAt: 'start',
    group: 'server',
    meaning: 'How often Node looks for connections past the two timeouts above (Node: 30 s).',
    check: wholeNumber(100, 30_000),
    fallback: 1000,
  }),
  managementPort: variable({
    name: 'MANAGEMENT_PORT',
    readAt: 'start',
    group: 'health',
    meaning:
      'The port of the management listener (/livez, /readyz, /metrics), answered off the main thread; 0 turns it off, metrics included. Not PORT (the start stops if it is). Never publish it.',
    check: wholeNumber(0, 65535),
    fallback: 9464,
  }),
  livenessWedgeMs: variable({
    name: 'LIVENESS_WEDGE_MS',
    readAt: 'start',
    group: 'health',
    meaning:
      'How long the main event loop may go without a heartbeat before /livez fails: busy is alive, stuck this long is not.',
    check: wholeNumber(1000, 60_000),
    fallback: 10_000,
  }),
  logLevel: variable({
    name: 'LOG_LEVEL',
    readAt: 'start',
    group: 'observability',
    meaning:
      'The least severe log lines written: request lines are info, so warn keeps only problems; silent writes none.',
    check: oneOf('trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'),
    fallback: 'info',
  }),
  // --- Rolling updates ---
  fleetPeers: variable({
    name: 'FLEET_PEERS',
    readAt: 'start',
    group: 'fleet',
    meaning:
      "The other instances, which answer for each other's build files while two builds serve side by side: base URLs, or dns:NAME:PORT for a headless Service. Unset, no request ever goes to a peer.",
    check: peerList,
    fallback: null,
  }),
  fleetFetchTimeoutMs: variable({
    name: 'FLEET_FETCH_TIMEOUT_MS',
    readAt: 'start',
    group: 'fleet',
    meaning:
      "The most a request for another build's file may wait on peers, answer included; also how long a peer has to say who it is.",
    check: wholeNumber(100, 60_000),
    fallback: 3000,
  }),
  keepStaticFrom: variable({
    name: 'KEEP_STATIC_FROM',
    readAt: 'build',
    group: 'fleet',
    meaning:
      "Earlier builds' `.next/static` folders whose files this build serves too, for tabs opened before the update (never overwriting its own). The Dockerfile fills it from PREVIOUS_IMAGE.",
    check: folderList,
    fallback: null,
  }),
  keepStaticBuilds: variable({
    name: 'KEEP_STATIC_BUILDS',
    readAt: 'build',
    group: 'fleet',
    meaning: 'How many earlier builds the carried files come from at most, the newest first.',
    check: wholeNumber(0, 50),
    fallback: 3,
  }),
  keepStaticDays: variable({
    name: 'KEEP_STATIC_DAYS',
    readAt: 'build',
    group: 'fleet',
    meaning: 'How old an earlier build may be, in days since it was built, for its files to be carried.',
    check: wholeNumber(1, 3650),
    fallback: 14,
  }),
  // --- Page cache ---
  pageCacheUrl: variable({
    name: 'PAGE_CACHE_URL',
    readAt: 'start',
    group: 'pageCache',
    meaning:
      "The Redis or Valkey every instance keeps Next's page cache in, so a page one instance rendered or revalidated is the one every instance serves. Its password comes from a Secret and is never logged. Unset, each instance keeps pages in its memory and its writable cache folder.",
    check: storeUrl,
    fallback: null,
  }),
  pageCacheTimeoutMs: variable({
    name: 'PAGE_CACHE_TIMEOUT_MS',
    readAt: 'start',
    group: 'pageCache',
    meaning:
      'The most a page waits on the store; past it, the store counts as a miss and the page is served from memory or the build, or rendered.',
    check: wholeNumber(5, 5000),
    fallback: 100,
  }),
  pageCacheTtlSeconds: variable({
    name: 'PAGE_CACHE_TTL_SECONDS',
    readAt: 'start',
    group: 'pageCache',
    meaning:
      "How long the store keeps a page no instance writes again: an old build's pages are gone after it. A page asked for after that is served from the build or rendered again.",
    check: wholeNumber(60, 31_536_000),
    fallback: 604_800,
  }),
  pageCacheMemoryMb: variable({
    name: 'PAGE_CACHE_MEMORY_MB',
    readAt: 'start',
    group: 'pageCache',
    meaning:
      "How much of each instance's memory the pages it serves most may take; the default is what Next's own memory cache takes.",
    check: wholeNumber(1, 16_384),
    fallback: 50,
  }),
  // --- Health ---
  eventLoopDelayWarnMs: variable({
    name: 'HEALTH_EVENT_LOOP_DELAY_MS_WARN',
    readAt: 'start',
    group: 'health',
    meaning: 'Event-loop delay p99, in ms, at which readiness warns; below the FAIL value.',
    check: wholeNumber(1, 600_000),
    fallback: 200,
  }),
  eventLoopDelayFailMs: variable({
    name: 'HEALTH_EVENT_LOOP_DELAY_MS_FAIL',
    readAt: 'start',
    group: 'health',
    meaning: 'Event-loop delay p99, in ms, at which readiness fails (503).',
    check: wholeNumber(1, 600_000),
    fallback: 1000,
  }),
  heapUsedWarnRatio: variable({
    name: 'HEALTH_HEAP_USED_RATIO_WARN',
    readAt: 'start',
    group: 'health',
    meaning: 'Heap used ÷ heap limit at which readiness warns; below the FAIL value.',
    check: decimal(0.01, 1),
    fallback: 0.85,
  }),
  heapUsedFailRatio: variable({
    name: 'HEALTH_HEAP_USED_RATIO_FAIL',
    readAt: 'start',
    group: 'health',
    meaning: 'Heap used ÷ heap limit at which readiness fails (503).',
    check: decimal(0.01, 1),
    fallback: 0.95,
  }),
  checkReuseMs: variable({
    name: 'HEALTH_CHECK_REUSE_MS',
    readAt: 'start',
    group: 'health',
    meaning: "How long a dependency check's result answers later probes.",
    check: wholeNumber(0, 60_000),
    fallback: 1000,
  }),
} satisfies Record<string, Variable<unknown>>;

export type VariableKey = keyof typeof VARIABLES;
export type ValueOf<K extends VariableKey> = (typeof VARIABLES)[K] extends Variable<infer T> ? T : never;
/** The variables `npm start` reads: `settings()` holds each under its key. */
export type StartKey = {
  [K in VariableKey]: (typeof VARIABLES)[K]['readAt'] extends 'build' ? never : K;
}[VariableKey];
export const START_KEYS = (Object.keys(VARIABLES) as VariableKey[]).filter(
  (key) => VARIABLES[key].readAt !== 'build',
) as StartKey[];

/**
 * A variable's value: its fallback when unset or blank (unless its check refuses blank), else its
 * checked value. A refused value adds one sentence naming the variable to `problems` and gives the
 * fallback.
 */
export function readVariable<K extends VariableKey>(key: K, env: Env, problems: string[]): ValueOf<K> {
  const row = VARIABLES[key] as Variable<ValueOf<K>>;
  const raw = env[row.name]?.trim();
  if (!raw) {
    // (Set to nothing, not unset: `undefined` is unset.)
    if (raw !== undefined && row.check.blank)
      problems.push(`${row.name} is set but empty: ${row.check.blank.refused}`);
    return row.fallback(env);
  }
  const parsed = row.check.parse(raw);
  if ('value' in parsed) return parsed.value;
  const got = row.check.echo === false ? '' : ` (got ${JSON.stringify(env[row.name])})`;
  problems.push(withoutUrlSecrets(`${row.name} ${parsed.problem}${got}`));
  return row.fallback(env);
}
