// Test-only route (see next.config.ts): getServerSideProps runs TypeScript which throws, for the
// source-map tests.
import { throwOnServer } from '../../__tests__/e2e/__fixtures__/throwing';

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async () => throwOnServer();

export default function TypeScriptServerErrorFixture() {
  return <p>Never rendered.</p>;
}
