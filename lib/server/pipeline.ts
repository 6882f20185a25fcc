// The server as one pipeline: what a connection and then a request meet, in order. Each stage is a
// module of its own; this file only puts them in order. lib/server/start.ts builds it from the
// settings and listens.
//
//   connection   1. connection limit: at MAX_CONNECTIONS the longest-idle connection goes
//                2. parser guards: bad input, CONNECT and upgrades get a clear 4xx
//   request      3. shutdown accounting: counted in flight; asked to close while draining
//                   observation: timed once answered, for the histogram and the request log
//                4. security headers, and the mark of the app's own answers, on every answer
//                   whoever writes it (ANSWER_HEADER: the service worker tells them from a balancer's);
//                   under `npm run dev`, a page's script nonce (lib/http/development-nonce.ts);
//                   every error answer private, no-store (lib/http/private-errors.ts)
//                5. request target and Host: a path, or a 400
//                   from here on, the product's own headers() on every answer the shell writes in
//                   Next's place, over the shell's defaults (lib/http/product-headers.ts)
//                6. query bound: too many parameters is a 414 before Next parses them
//                7. the error-reporting tunnel
//                8. another build's reporting file: a redirect to this build's (./reporting-file.ts)
//                9. a stopping peer's waiting reports (lib/reporting/queue/hand-off.ts)
//                   a page's beacon that it reloaded for a lost build file (lib/fleet/recovery.ts)
//                   the service worker's script, and its beacons (lib/service-worker/serve.ts); every
//                   beacon within the bounds of lib/http/beacon.ts
//                   a language's client-exception words, for browsers (lib/language/words-stage.ts)
//               10. another build's file or data: asked of the peer that has it (lib/fleet/)
//               11. the health probes, from the same code as their route files (lib/health/stage.ts)
//               12. tracing: a server transaction, when sampled (./trace-requests.ts)
//               13. paths surely unknown: "Page not found" in the visitor's language, from memory,
//                   or problem details under /api (./not-found.ts, ./unknown-paths.ts)
//               14. Next, whose failure is reported with a reference and answered 500, and whose
//                   404 is answered as in 13 (./restyle-not-found.ts)
//
// Every answer is a ShellResponse (./shell-response.ts): the watches of 4, 5 and 14 on its head and
// writes are flags it carries, read by its own writeHead, write and end, not wrappers per request.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Settings } from '../config/settings';
import { boundQuery, QUERY_MAX_PARAMS } from '../http/query-bound';
import { securityHeaderSetter } from '../http/security-headers';
import { applyProductHeaders, handedToNext, takenBack, type ProductHeaders } from '../http/product-headers';
import { giveDevelopmentNonce } from '../http/development-nonce';
import { createRequestCounter, type RequestCounter } from '../lifecycle/graceful-shutdown';
import { errorFields, log } from '../log/logger';
import { rememberResponse } from '../reporting/node/answered-status';
import { reportThroughServerHook } from '../reporting/server-hook';
import type { Tunnel } from '../reporting/tunnel';
import { followNextMatch, ROUTES } from '../metrics/http-route';
import { noteReference } from '../reporting/node/request-reference';
import { limitConnections, type ConnectionLimit } from './connection-limit';
import { answeredBeforeNext, guardConnections, refuseTooManyParams, type UpgradeHandler } from './guards';
import type { RequestObserver } from './observe-requests';
import type { RequestTracer } from './trace-requests';
import type { Fleet } from '../fleet/stage';
import { LOST_FILE_PATH } from '../fleet/paths';
import { answerLostFileBeacon } from '../fleet/lost-file-beacon';
import { keepErrorAnswersPrivate } from '../http/private-errors';
import { ANSWER_HEADER, SCREEN_SEEN_PATH } from '../service-worker/paths';
import type { WorkerStage } from '../service-worker/serve';
import type { NotFoundStage } from './not-found';
import { restyleNotFound, type NotFoundAnswer } from './restyle-not-found';
import { ShellResponse } from './shell-response';
import type { WordsStage } from '../language/words-stage';
import type { HealthStage } from '../health/stage';

/** What the pipeline needs of Next (a prepared `next()` app). */
export interface NextStage {
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Renders the error screen for `path` (the 414 screen). */
  renderError: (req: IncomingMessage, res: ServerResponse, path: string) => Promise<void>;
  /** Next's upgrade handler under `npm run dev` (hot reloading); none in production. */
  upgrade?: UpgradeHandler;
}

export interface PipelineOptions {
  settings: Pick<
    Settings,
    | 'keepAliveTimeoutMs'
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'connectionsCheckIntervalMs'
    | 'maxConnections'
  >;
  dev: boolean;
  next: NextStage;
  tunnel: Tunnel | null;
  /** Times and logs each request (./observe-requests.ts). */
  observer: RequestObserver;
  /** Where a request for another build's reporting file goes (./reporting-file.ts), if anywhere. */
  reportingFile?: ((path: string) => string | null) | null;
  /** Starts a request's server transaction (./trace-requests.ts); null without tracing. */
  tracer?: RequestTracer | null;
  /** Peers that answer for other builds' files (lib/fleet/); null without FLEET_PEERS. */
  fleet?: Fleet | null;
  /** The service worker's script and beacons (lib/service-worker/serve.ts). */
  serviceWorker?: WorkerStage | null;
  /** A language's client-exception words, for browsers (lib/language/words-stage.ts). */
  words?: WordsStage | null;
  /**
   * Reports a stopping peer hands over (lib/reporting/queue/hand-off.ts); null without a queue,
   * FLEET_PEERS or REPORT_HANDOFF_SECRET.
   */
  reportsHandOff?: ((req: IncomingMessage, res: ServerResponse, path: string) => boolean) | null;
  /** "Page not found" in the visitor's words (./not-found.ts); null: Next's own 404 page. */
  notFound?: NotFoundStage | null;
  /** The health probes, answered before Next (lib/health/stage.ts); null where Next answers them. */
  health?: HealthStage | null;
  /** The product's headers() rules (lib/http/product-headers.ts); null when it has none. */
  productHeaders?: ProductHeaders | null;
}

export interface Pipeline {
  server: Server;
  requests: RequestCounter;
  connections: ConnectionLimit;
}

/**
 * A request Next's handler (or a stage that answers in its stead, as the health probes') failed:
 * reported like any server error, answered 500, never thrown.
 */
export function handlerFailed(req: IncomingMessage, res: ServerResponse, error: unknown): void {
  const reference = reportThroughServerHook(error, {
    route: '(server)',
    method: req.method as string, // (a server's request always has one)
    status: 500,
    path: req.url,
    mechanism: 'request_handler',
  });
  noteReference(req.headers, reference);
  log('error', 'server.request_failed', { ...(reference ? { reference } : {}), error: errorFields(error) });
  if (!res.headersSent) {
    res.statusCode = 500;
    res.end();
  } else {
    res.destroy();
  }
}

export function createPipeline({
  settings,
  dev,
  next,
  tunnel,
  observer,
  reportingFile = null,
  tracer = null,
  fleet = null,
  serviceWorker = null,
  notFound = null,
  words = null,
  reportsHandOff = null,
  health = null,
  productHeaders = null,
}: PipelineOptions): Pipeline {
  const requests = createRequestCounter();
  // With a tunnel (a DSN), a page's policy reports its violations there (lib/reporting/tunnel/security-reports.ts).
  const headerOptions = { dev, reportPath: tunnel?.path ?? null };
  const setSecurityHeaders = securityHeaderSetter(headerOptions);
  /** Next's 404 in the visitor's words, made once: each request gives it its path (./restyle-not-found.ts). */
  const answerNextNotFound: NotFoundAnswer | null = notFound
    ? (req, res, path) => {
        observer.answeredAs(res, ROUTES.notFound);
        // The shell's words in place of Next's 404: the product's headers over the shell's again.
        takenBack(res as ShellResponse); // (the answer restyled: one of this server's own)
        notFound.answer(req, res, path);
      }
    : null;
  const handleRequest = (req: IncomingMessage, res: ShellResponse): void => {
    connections.requestStarted(req, res);
    requests.requestStarted(res);
    observer.requestStarted(req, res);
    setSecurityHeaders(res, req.url as string);
    if (dev) giveDevelopmentNonce(req, res, req.url as string, headerOptions);
    keepErrorAnswersPrivate(res);
    res.setHeader(ANSWER_HEADER, '1');
    if (answeredBeforeNext(req, res)) return observer.answeredAs(res, ROUTES.refused);
    // SECURITY: Next's cost for a query grows with the square of its parameters; bound it first.
    // (A probe answered before Next drops its query; where Next answers it, Next gets it whole.)
    const query = boundQuery(req.url as string, QUERY_MAX_PARAMS, health ? health.serves : () => false);
    req.url = query.kind === 'too-many' ? query.path : query.url;
    // Matched when a head is written, and only for the shell's own answers: a request Next answers
    // pays nothing here, and Next sets the rules' headers itself. (Against the URL as Next gets it.)
    if (productHeaders) applyProductHeaders(productHeaders, res, req.url);
    if (query.kind === 'too-many') {
      observer.answeredAs(res, ROUTES.refused);
      refuseTooManyParams(req, res, () => next.renderError(req, res, query.path));
      return;
    }
    // One string comparison is all other requests pay for the tunnel.
    if (tunnel?.matches(req.url)) {
      observer.answeredAs(res, tunnel.path);
      void tunnel.handle(req, res);
      return;
    }
    const moved = reportingFile?.(query.path);
    if (moved) {
      observer.answeredAs(res, ROUTES.nextAsset);
      // Never cached: the next deploy moves it again.
      res.writeHead(307, { Location: moved, 'Cache-Control': 'no-store' }).end();
      return;
    }
    if (reportsHandOff?.(req, res, query.path)) {
      observer.answeredAs(res, ROUTES.shell);
      return;
    }
    if (query.path === LOST_FILE_PATH) {
      observer.answeredAs(res, ROUTES.beacon);
      answerLostFileBeacon(req, res);
      return;
    }
    if (serviceWorker?.(req, res, query.path) || words?.(req, res, query.path)) {
      observer.answeredAs(res, query.path.startsWith(`${SCREEN_SEEN_PATH}/`) ? ROUTES.beacon : ROUTES.shell);
      return;
    }
    const toNext = () => {
      // Answered under its own path, which is the route Next's would name.
      if (health?.(req, res, query.path)) return observer.answeredAs(res, query.path);
      tracer?.(req, res, query.path);
      if (notFound?.answerIfUnknown(req, res, query.path)) return observer.answeredAs(res, ROUTES.notFound);
      // Every other path is Next's to decide; a 404 it decides is answered in the visitor's words.
      if (answerNextNotFound) restyleNotFound(res, answerNextNotFound, query.path);
      // So that a reported error can learn how its request was answered.
      rememberResponse(req, res);
      handedToNext(res);
      // So that a page's failure or its `notFound` counts under the page, not Next's error page.
      followNextMatch(req);
      next.handle(req, res).catch((error: unknown) => handlerFailed(req, res, error));
    };
    if (fleet?.take(req, res, query.path, toNext)) {
      observer.answeredAs(res, ROUTES.nextAsset);
      return;
    }
    toNext();
  };

  // Node's own Host check answers without the security headers; stage 5 checks instead.
  const server = http.createServer(
    {
      requireHostHeader: false,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: settings.connectionsCheckIntervalMs,
      // Answers whose watches are flags, not wrappers made for each request (./shell-response.ts).
      ServerResponse: ShellResponse,
    },
    handleRequest,
  );
  // (Read by handleRequest above, which only runs once the server has requests.)
  const connections = limitConnections(server, settings.maxConnections);
  guardConnections(server, next.upgrade);
  server.on('error', (error) => {
    // Before it listens, the only error is a failure to listen: the start says that, in one line
    // (./cannot-start.ts), and a second line with a stack would bury it.
    if (server.listening) log('error', 'server.error_event', { error: errorFields(error) });
  });
  return { server, requests, connections };
}
