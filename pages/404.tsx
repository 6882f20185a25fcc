import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import { notFound } from '../components/error-screen/copy/not-found';

// Prerendered to static HTML at build time (no data fetching), and shipped without any JavaScript:
// three sentences need no runtime, and the browser's Back is the way back. Next calls this
// page-level switch "unstable", so __tests__/e2e/page-weight.test.ts fails the day a Next upgrade
// brings scripts back into the built 404.html.
export const config = { unstable_runtimeJS: false };

export default function NotFoundPage() {
  return <ErrorScreen copy={notFound} />;
}
