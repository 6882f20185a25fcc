// What the error screens are before any JavaScript runs: the HTML the server sends, which is all a
// visitor with JavaScript off ever gets. Rendered with React's server renderer, as Next does.
import type { ErrorScreen as ErrorScreenComponent } from '../../../../components/error-screen/ErrorScreen';
import type { ScreenCopy } from '@lib/screens/types';

const KINDS = ['not-found', 'bad-request', 'server-error', 'client-exception'] as const;

/** The screen and its copy, loaded afresh with the build-time values in `env` (site.ts reads them once). */
function load(env: Record<string, string>) {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  Object.assign(process.env, env);
  let loaded!: {
    renderToString: (element: React.ReactElement) => string;
    ErrorScreen: typeof ErrorScreenComponent;
    copies: Record<(typeof KINDS)[number], ScreenCopy>;
  };
  // require(), not import: the modules must load inside isolateModules, after env is set.
  /* eslint-disable @typescript-eslint/no-require-imports */
  jest.isolateModules(() => {
    loaded = {
      // From the same module registry as the screen, so both use one copy of React.
      renderToString: require('react-dom/server').renderToString,
      ErrorScreen: require('../../../../components/error-screen/ErrorScreen').ErrorScreen,
      copies: {
        'not-found': require('@lib/screens/en/not-found').notFound,
        'bad-request': require('@lib/screens/en/bad-request').badRequest,
        'server-error': require('@lib/screens/en/server-error').serverError,
        'client-exception': require('@lib/screens/en/client-exception').clientException,
      },
    };
  });
  /* eslint-enable @typescript-eslint/no-require-imports */
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return loaded;
}

describe('the error screens as the server sends them', () => {
  it.each(KINDS)(
    '%s: no control that needs JavaScript (Go back, Copy, Reload, Try again as a button)',
    (kind) => {
      const { renderToString, ErrorScreen, copies } = load({});
      const html = renderToString(
        <ErrorScreen
          copy={copies[kind]}
          reference={'a'.repeat(32)}
          retryHref="/orders?id=3"
          onRetry={() => {}}
        />,
      );
      expect(html).not.toMatch(/<button/);
      expect(html).not.toMatch(/>(Go back to the previous page|Copy|Copy reference|Reload the page)</);
    },
  );

  it('keeps the retry link on a server error: it works without JavaScript', () => {
    const { renderToString, ErrorScreen, copies } = load({});
    const html = renderToString(<ErrorScreen copy={copies['server-error']} retryHref="/orders?id=3" />);
    expect(html).toContain('<a class="es-button" href="/orders?id=3">Try again</a>');
  });

  it.each(KINDS)('%s: shows the home and contact links when the build sets them', (kind) => {
    const { renderToString, ErrorScreen, copies } = load({
      APP_HOME_HREF: '/start',
      APP_CONTACT_HREF: 'mailto:help@example.com',
      APP_CONTACT_LABEL: 'the help desk',
    });
    const html = renderToString(<ErrorScreen copy={copies[kind]} />);
    expect(html).toContain('href="/start"');
    expect(html).toContain('Go to the home page');
    expect(html).toContain('If you need help, <a href="mailto:help@example.com">the help desk</a>.');
  });

  it.each(KINDS)('%s: shows neither link when the build sets none', (kind) => {
    const { renderToString, ErrorScreen, copies } = load({});
    const html = renderToString(<ErrorScreen copy={copies[kind]} />);
    expect(html).not.toContain('Go to the home page');
    expect(html).not.toContain('If you need help');
  });
});
