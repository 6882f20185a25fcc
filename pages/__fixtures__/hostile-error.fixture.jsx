// Test-only route (see next.config.ts): throws a value that throws again whenever anything reads
// it, so the error screen's own code meets an error on the error path.

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async () => {
  throw new Proxy(
    {},
    {
      get() {
        throw new Error('Fixture: this error cannot be read');
      },
      getPrototypeOf() {
        throw new Error('Fixture: this error has no prototype');
      },
    },
  );
};

export default function HostileErrorFixture() {
  return <p>Never rendered.</p>;
}
