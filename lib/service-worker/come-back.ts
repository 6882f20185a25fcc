// The one script of the offline and unavailable screens: it brings the page back by itself. Like
// ./worker.ts it is a function of what it touches, turned into inline script text by `npm run build`
// (./script.ts), so it must not import anything at run time.
//
// It asks for the page (HEAD, past every cache) with backoff: after about 1, 2, 4, 8, 8… seconds,
// each wait varied by a quarter either way so that visitors who lost the app together do not come
// back together. The moment the browser says it is online again, it asks at once. An answer the app
// made (ANSWER_HEADER), or any answer that is not a balancer's 502, 503 or 504, means the page can
// load: the page reloads, through the worker, which shows it.

export interface ComeBackSettings {
  answerHeader: string;
  balancerStatuses: readonly number[];
  firstWaitMs: number;
  longestWaitMs: number;
}

export interface ComeBackScope {
  addEventListener(type: 'online', listener: () => void): void;
  fetch: typeof fetch;
  location: { href: string; reload(): void };
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(timer: unknown): void;
}

export function comeBack(scope: ComeBackScope, settings: ComeBackSettings): void {
  let wait = settings.firstWaitMs;
  let timer: unknown;
  let asking = false;

  const answers = (response: Response) =>
    response.type === 'opaqueredirect' ||
    response.headers.has(settings.answerHeader) ||
    !settings.balancerStatuses.includes(response.status);

  function later(): void {
    scope.clearTimeout(timer);
    timer = scope.setTimeout(ask, wait * (0.75 + Math.random() / 2));
    wait = Math.min(wait * 2, settings.longestWaitMs);
  }

  function ask(): void {
    if (asking) return;
    asking = true;
    scope
      .fetch(scope.location.href, { method: 'HEAD', cache: 'no-store', redirect: 'manual' })
      .then(
        (response) => (answers(response) ? scope.location.reload() : later()),
        () => later(),
      )
      .finally(() => (asking = false));
  }

  scope.addEventListener('online', () => {
    wait = settings.firstWaitMs;
    scope.clearTimeout(timer);
    ask();
  });
  later();
}
