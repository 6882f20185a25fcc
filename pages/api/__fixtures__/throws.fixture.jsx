// Test-only API route (see next.config.ts): fails while handling the request.
/** @type {import('next').NextApiHandler} */
export default function throwsFixture() {
  throw new Error('Fixture API route error');
}
