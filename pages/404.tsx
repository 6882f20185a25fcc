import { ErrorScreen } from '../components/error-screen/ErrorScreen';

// No data fetching, so Next prerenders this page to static HTML at build time.
export default function NotFoundPage() {
  return <ErrorScreen kind="not-found" />;
}
