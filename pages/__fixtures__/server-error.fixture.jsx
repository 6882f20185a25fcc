// Test-only route (see next.config.ts): getServerSideProps fails, so _error renders a 500. With
// ?id=, the error's message ends with it: distinct errors, each its own report. With ?public, the
// page first says its answer may be cached by anyone, as a product page might.

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async ({ query, res }) => {
  if (query.public !== undefined) res.setHeader('Cache-Control', 'public, s-maxage=600');
  throw new Error(`Fixture server render error${typeof query.id === 'string' ? ` ${query.id}` : ''}`);
};

export default function ServerErrorFixture() {
  return <p>Never rendered.</p>;
}
