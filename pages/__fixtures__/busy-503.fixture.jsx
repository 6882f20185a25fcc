// Test-only route (see next.config.ts): a page the app itself answers 503 to, with its own body, as
// a product's page may when a dependency it needs is down. The service worker must show it as it
// is, not its unavailable screen: the app's mark (x-app-shell-answer) tells it from a balancer's 503.

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async ({ res }) => {
  res.statusCode = 503;
  res.setHeader('Retry-After', '30');
  return { props: {} };
};

export default function Busy503Fixture() {
  return (
    <main>
      <h1>Orders are paused for maintenance</h1>
    </main>
  );
}
