// Test-only route (see next.config.ts): getInitialProps throws only when run in the browser.
function FailsInBrowserFixture() {
  return <p>Rendered on the server.</p>;
}

FailsInBrowserFixture.getInitialProps = async () => {
  if (typeof window !== 'undefined') throw new Error('Fixture client-side exception');
  return {};
};

export default FailsInBrowserFixture;
