// Test-only API route (see next.config.js): throws an error whose message carries `?id=`. The
// reporting tests use it as a barrier: once its event has arrived, any event the server reported
// before it has arrived too.
/** @type {import('next').NextApiHandler} */
export default function markerFixture(req) {
  throw new Error(`Fixture marker ${String(req.query.id)}`);
}
