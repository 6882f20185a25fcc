// Test-only API route (see next.config.ts): throws an error whose message carries `?id=`. The
// reporting tests use it as a barrier: once its event has arrived, any event the server reported
// before it has arrived too.
/** @type {import('next').NextApiHandler} */
// With ?afterMs=, it throws only after that long: a request still in flight when the server is told to stop.
export default async function markerFixture(req) {
  const afterMs = Number(req.query.afterMs) || 0;
  if (afterMs > 0) await new Promise((resolve) => setTimeout(resolve, afterMs));
  throw new Error(`Fixture marker ${String(req.query.id)}`);
}
