// Test-only API route (see next.config.ts): never returns, and holds the event loop while it does
// not: the main thread is wedged until the process is killed.
/** @type {import('next').NextApiHandler} */
export default function wedgeFixture() {
  for (;;) {
    // spin
  }
}
