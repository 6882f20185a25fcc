// Test-only API route (see next.config.ts). Sent malformed JSON, it never runs: Next's body parser
// throws its own client error (400 "Invalid JSON"), which reaches onRequestError like any other.
// Run, it throws an ordinary error that happens to carry a statusCode property (an HTTP client's
// error for an upstream 404, say), which Next still answers with 500.
/** @type {import('next').NextApiHandler} */
export default function clientErrorFixture() {
  throw Object.assign(new Error('Fixture upstream error with a statusCode'), { statusCode: 404 });
}
