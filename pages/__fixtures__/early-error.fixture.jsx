// Test-only route (see next.config.ts): an error thrown as soon as the page's code runs, long
// before the error-reporting SDK loads (it waits for the page to be idle).
if (typeof window !== 'undefined') {
  setTimeout(() => {
    // Recorded so the test can check the SDK file was requested after this.
    window.__fixtureEarlyErrorAt = performance.now();
    throw new Error('Fixture early error');
  }, 0);
}

export default function EarlyErrorFixture() {
  return <h1>Early error fixture</h1>;
}
