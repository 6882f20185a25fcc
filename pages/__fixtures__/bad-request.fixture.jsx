// Test-only route (see next.config.ts): the error screen for a 4xx other than 404, as a product page
// that answers 400 itself shows it: with the screen component and the words it wants (here English),
// and with JavaScript, so its "go back" button is there. (pages/_error is Next's error page: in the
// browser it only ever shows a client exception.)
import { ErrorScreen } from '../../components/error-screen/ErrorScreen';
import { badRequest } from '../../lib/screens/en/bad-request';

/** @type {import('next').GetServerSideProps} */
export const getServerSideProps = async ({ res }) => {
  res.statusCode = 400;
  return { props: {} };
};

export default function BadRequestFixture() {
  return <ErrorScreen copy={badRequest} />;
}
