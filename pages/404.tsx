import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import { notFound } from '../components/error-screen/copy/not-found';

// No data fetching, so Next prerenders this page to static HTML at build time.
export default function NotFoundPage() {
  return <ErrorScreen copy={notFound} />;
}
