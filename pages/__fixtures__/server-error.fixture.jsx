// Test-only route (see next.config.ts): getServerSideProps fails, so _error renders a 500.

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async () => {
  throw new Error('Fixture server render error');
};

export default function ServerErrorFixture() {
  return <p>Never rendered.</p>;
}
