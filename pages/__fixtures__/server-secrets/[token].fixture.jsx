// Test-only route (see next.config.ts): a dynamic route whose segment is a secret, failing on the
// server with the case of the secret table (__tests__/support/secrets.ts) that ?case= names.
import { SECRET_CASES } from '../../../__tests__/support/secrets';

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async ({ query }) => {
  const index = Number(query.case) || 0;
  throw new Error(`Fixture server secret ${index}: ${SECRET_CASES[index]?.text ?? ''}`);
};

export default function ServerSecretsFixture() {
  return <p>Never rendered.</p>;
}
