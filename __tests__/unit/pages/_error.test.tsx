/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
import { render, screen } from '@testing-library/react';
import type { NextPageContext } from 'next';
import ErrorPage from '../../../pages/_error';

jest.mock('next/head', () => ({
  __esModule: true,
  default: jest.requireActual('../support/render-with-head').InlineHead,
}));

function context(parts: Partial<NextPageContext>): NextPageContext {
  return { pathname: '/_error', query: {}, AppTree: () => null, ...parts } as unknown as NextPageContext;
}

describe('_error getInitialProps', () => {
  it('takes the status from the response first', () => {
    const props = ErrorPage.getInitialProps(
      context({ res: { statusCode: 503 } as never, err: Object.assign(new Error('x'), { statusCode: 400 }) }),
    );
    expect(props.statusCode).toBe(503);
  });

  it('takes the status from the error when there is no response', () => {
    const props = ErrorPage.getInitialProps(
      context({ err: Object.assign(new Error('x'), { statusCode: 405 }) }),
    );
    expect(props.statusCode).toBe(405);
  });

  it('falls back to 404 when there is neither', () => {
    expect(ErrorPage.getInitialProps(context({})).statusCode).toBe(404);
  });

  it('leaves the status undefined for a client-side exception', () => {
    expect(ErrorPage.getInitialProps(context({ err: new Error('boom') })).statusCode).toBeUndefined();
  });

  it('passes a same-origin retry link and drops one that would leave the site', () => {
    expect(
      ErrorPage.getInitialProps(context({ res: { statusCode: 500 } as never, asPath: '/a?b=1' })).retryHref,
    ).toBe('/a?b=1');
    expect(
      ErrorPage.getInitialProps(context({ res: { statusCode: 500 } as never, asPath: '//evil.example/' }))
        .retryHref,
    ).toBeUndefined();
  });
});

describe('_error screen in the browser', () => {
  // The screen asks the server for the visitor's words (jsdom has no fetch): none to be had here.
  beforeAll(() =>
    Object.assign(globalThis, { fetch: jest.fn(async () => Promise.reject(new TypeError('offline'))) }),
  );
  afterAll(() => delete (globalThis as { fetch?: unknown }).fetch);

  // There it only ever shows a client exception: a server's screens come from the server.
  it.each([undefined, 500, 404])('with status %p shows "Sorry, this page stopped working"', (statusCode) => {
    render(<ErrorPage statusCode={statusCode} />);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Sorry, this page stopped working');
  });
});
