import Document, {
  type DocumentContext,
  type DocumentInitialProps,
  Head,
  Html,
  Main,
  NextScript,
} from 'next/document';
import { type TraceMeta, traceMetaOf } from '../lib/reporting/trace-meta';

type Props = DocumentInitialProps & { trace: TraceMeta | null };

/**
 * With tracing on, a document rendered for a request carries the server transaction's trace as
 * `sentry-trace` and `baggage` meta tags: the browser's page load continues that trace, and its
 * sampling decision (lib/server/trace-requests.ts, lib/reporting/browser/reporter.ts). Pages
 * rendered at build time (the 404) have no request, and no tags.
 */
export default class AppDocument extends Document<Props> {
  static override async getInitialProps(ctx: DocumentContext): Promise<Props> {
    const initial = await Document.getInitialProps(ctx);
    return { ...initial, trace: traceMetaOf(ctx.req) };
  }

  override render() {
    const { trace } = this.props;
    return (
      <Html lang="en">
        <Head>
          {trace ? (
            <>
              <meta name="sentry-trace" content={trace.sentryTrace} />
              <meta name="baggage" content={trace.baggage} />
            </>
          ) : null}
        </Head>
        <body>
          <Main />
          <NextScript />
        </body>
      </Html>
    );
  }
}
