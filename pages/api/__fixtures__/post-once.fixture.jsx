// Test-only API route (see next.config.ts): a POST that must never be sent twice. It prints its
// ?id= on arrival, before anything else, then answers after ?ms= (at most 1 s): the instance-death
// test kills instances while such POSTs are in flight and counts each id over every instance's output.
/** @type {import('next').NextApiHandler} */
export default async function postOnceFixture(req, res) {
  process.stdout.write(`fixture.post_once ${String(req.query.id)}\n`);
  const ms = Math.min(Number(req.query.ms) || 0, 1000);
  await new Promise((resolve) => setTimeout(resolve, ms));
  res.status(200).json({ id: String(req.query.id) });
}
