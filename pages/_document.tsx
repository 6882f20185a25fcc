import Document, {
  type DocumentContext,
  type DocumentInitialProps,
  Head,
  Html,
  Main,
  NextScript,
} from 'next/document';
import { copyIn } from '../lib/screens/languages';
import { defaultLanguage } from '../lib/language/offered';
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
    const { trace, __NEXT_DATA__ } = this.props;
    // An error screen names the language the server chose for it (pages/_error.tsx); every other
    // page, the 404 prerendered at build time included, is in the default language.
    const chosen = (__NEXT_DATA__.props as { pageProps?: { language?: unknown } } | undefined)?.pageProps
      ?.language;
    const { lang, dir } = copyIn(typeof chosen === 'string' ? chosen : defaultLanguage()).common;
    return (
      <Html lang={lang} dir={dir}>
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
