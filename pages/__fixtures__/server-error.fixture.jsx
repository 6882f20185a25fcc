// Test-only route (see next.config.ts): getServerSideProps fails, so _error renders a 500. With
// ?id=, the error's message ends with it: distinct errors, each its own report.

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async ({ query }) => {
  throw new Error(`Fixture server render error${typeof query.id === 'string' ? ` ${query.id}` : ''}`);
};

export default function ServerErrorFixture() {
  return <p>Never rendered.</p>;
}
