// Test-only route (see next.config.ts): answers after ?ms= milliseconds (at most 10 s), to have a
// request in flight while the server shuts down.

/** @type {import('next').GetServerSideProps<{ waited: number }>} */
export const getServerSideProps = async ({ query }) => {
  const waited = Math.min(Number(query.ms) || 0, 10_000);
  await new Promise((resolve) => setTimeout(resolve, waited));
  return { props: { waited } };
};

/** @param {{ waited: number }} props */
export default function SlowFixture({ waited }) {
  return <p>Answered after {waited} ms.</p>;
}
