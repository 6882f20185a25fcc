// Test-only API route (see next.config.ts): answers how many distinct query keys Next handed it,
// so the reliability suite can time the most a permitted query can cost an API route.
/** @type {import('next').NextApiHandler} */
export default function queryCountFixture(req, res) {
  res.status(200).json({ keys: Object.keys(req.query).length });
}
