// How many traces the sampled decision of a request's own `sentry-trace` header may start: a
// stranger's header can join a trace but not buy one (docs/performance.md, "Who decides sampling").
//
// A token bucket, filled at the configured rate by every request the tracer sees and drawn on by
// each request whose header says "sampled". Honest traffic fits: the requests that carry a sampled
// decision (a sampled page's navigations and fetches) are at most the rate's share of the
// follow-up requests all pages make, and every request, sampled or not, fills the bucket. A
// stranger who adds the header to every request buys no more than the rate of those requests plus
// the burst: the same transactions the rate would have made of them anyway, at most twice.
//
// Chosen over a decision the server signs into the page: a signature travels with the trace to
// every replica (a key shared by the fleet), and can be replayed by whoever read one page; the
// bucket needs neither, at the cost that a flood of forged headers can spend it, so that a sampled
// page's next requests keep its trace id but are then sampled by the rate like any other.
export interface TraceBudget {
  /** A request the tracer sees: the bucket fills by the rate. */
  earn: () => void;
  /** Whether one inherited "sampled" may be honoured now; takes a token when it may. */
  take: () => boolean;
}

/** Tokens the bucket holds at most, and starts with: a sampled page's first few requests on a quiet server. */
export const TRACE_BURST = 10;

export function createTraceBudget(rate: number, burst = TRACE_BURST): TraceBudget {
  // (A rate outside 0…1 is refused when the configuration is read; clamped here all the same.)
  const fill = Math.min(Math.max(rate, 0), 1);
  // At least one: a request at rate 1 earns its own token.
  const most = Math.max(burst, 1);
  let tokens = most;
  return {
    earn() {
      tokens = Math.min(most, tokens + fill);
    },
    take() {
      if (tokens < 1) return false;
      tokens -= 1;
      return true;
    },
  };
}
