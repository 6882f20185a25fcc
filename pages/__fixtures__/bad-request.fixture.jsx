// Test-only route (see next.config.ts): the error screen for a 4xx other than 404, as a page
// that answers 400 would show it.
import ErrorPage from '../_error';

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async ({ res }) => {
  res.statusCode = 400;
  return { props: {} };
};

export default function BadRequestFixture() {
  return <ErrorPage statusCode={400} />;
}
