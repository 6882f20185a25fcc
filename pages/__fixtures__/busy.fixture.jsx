// Test-only route (see next.config.ts): a server render that keeps the event loop busy for ?ms=
// milliseconds of CPU (40 by default, at most 1 s), like a modest server-rendered page.

/** @type {import('next').GetServerSideProps<{ burnt: number }>} */
export const getServerSideProps = async ({ query }) => {
  const ms = Math.min(Number(query.ms) || 40, 1000);
  const until = performance.now() + ms;
  let spins = 0;
  while (performance.now() < until) spins += 1;
  return { props: { burnt: ms, spins } };
};

/** @param {{ burnt: number }} props */
export default function BusyFixture({ burnt }) {
  return <p>Rendered with {burnt} ms of CPU.</p>;
}
