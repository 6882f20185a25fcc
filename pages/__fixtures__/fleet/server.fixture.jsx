// Test-only route (see next.config.ts): rendered per request, so a client-side navigation to it asks
// /_next/data/<buildId>/… of whichever instance the balancer picks.
export async function getServerSideProps() {
  return { props: { renderedBy: process.env.APP_FIXTURE_BUILD_ID ?? '' } };
}

export default function FleetServerFixture({ renderedBy }) {
  return (
    <main data-build={renderedBy}>
      <h1>Server-rendered fixture</h1>
    </main>
  );
}
