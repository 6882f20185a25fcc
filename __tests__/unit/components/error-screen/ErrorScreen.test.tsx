/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ErrorScreen } from '../../../../components/error-screen/ErrorScreen';
import { badRequest } from '@lib/screens/en/bad-request';
import { clientException } from '@lib/screens/en/client-exception';
import { common } from '@lib/screens/en/common';
import { notFound } from '@lib/screens/en/not-found';
import { serverError } from '@lib/screens/en/server-error';
import type { ScreenCopy } from '@lib/screens/types';
import { titleText } from '../../support/render-with-head';

jest.mock('next/head', () => ({
  __esModule: true,
  default: jest.requireActual('../../support/render-with-head').InlineHead,
}));

const cases: { kind: string; copy: ScreenCopy; heading: string; says: RegExp }[] = [
  { kind: 'not-found', copy: notFound, heading: 'Page not found', says: /check it is correct/i },
  {
    kind: 'bad-request',
    copy: badRequest,
    heading: 'Sorry, this web address or request cannot be used',
    says: /check the web address/i,
  },
  {
    kind: 'server-error',
    copy: serverError,
    heading: 'Sorry, there is a problem with the service',
    says: /try again/i,
  },
  {
    kind: 'client-exception',
    copy: clientException,
    heading: 'Sorry, this page stopped working',
    says: /reload/i,
  },
];

describe('ErrorScreen', () => {
  it.each(cases)('shows one level-1 heading and its own title for $kind', ({ copy, heading, says }) => {
    render(<ErrorScreen copy={copy} />);
    const headings = screen.getAllByRole('heading', { level: 1 });
    expect(headings).toHaveLength(1);
    expect(headings[0]).toHaveTextContent(heading);
    expect(titleText()).toBe(`${heading} – This service`);
    expect(screen.getByRole('main')).toHaveTextContent(says);
  });

  it('gives every state a different heading and title', () => {
    const titles = cases.map(({ copy }) => {
      const { unmount } = render(<ErrorScreen copy={copy} />);
      const title = titleText();
      unmount();
      return title;
    });
    expect(new Set(titles).size).toBe(cases.length);
  });

  it.each(cases)('uses no status-code jargon in the heading of $kind', ({ copy }) => {
    render(<ErrorScreen copy={copy} />);
    expect(screen.getByRole('heading', { level: 1 }).textContent).not.toMatch(/\b[45]\d\d\b|error/i);
  });

  it('has no controls on the not-found screen, which ships no JavaScript, and no link to a missing page', () => {
    render(<ErrorScreen copy={notFound} />);
    // The browser's Back is the way back (GOV.UK's pattern has no such button either).
    expect(screen.queryByRole('button')).not.toBeInTheDocument();
    // The product page set is empty, so a home link would lead to another "Page not found".
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
  });

  it.each([
    ['bad request', badRequest],
    ['server error', serverError],
  ])('offers a way back on the %s screen once JavaScript runs', (_name, copy) => {
    render(<ErrorScreen copy={copy} />);
    expect(screen.getByRole('button', { name: 'Go back to the previous page' })).toBeInTheDocument();
  });

  it('offers a same-page retry link on a server error, which works without JavaScript', () => {
    render(<ErrorScreen copy={serverError} retryHref="/orders?id=3" />);
    expect(screen.getByRole('link', { name: 'Try again' })).toHaveAttribute('href', '/orders?id=3');
  });

  it('takes the browser back a page from its "Go back"', async () => {
    const back = jest.spyOn(window.history, 'back').mockImplementation(() => undefined);
    try {
      render(<ErrorScreen copy={badRequest} />);
      await userEvent.click(screen.getByRole('button', { name: 'Go back to the previous page' }));
      expect(back).toHaveBeenCalledTimes(1);
    } finally {
      back.mockRestore();
    }
  });

  it('offers the retry link on a server error only, and only with somewhere to retry', () => {
    const { unmount } = render(<ErrorScreen copy={serverError} />);
    expect(screen.queryByRole('link', { name: 'Try again' })).not.toBeInTheDocument();
    unmount();
    render(<ErrorScreen copy={badRequest} retryHref="/orders?id=3" />);
    expect(screen.queryByRole('link', { name: 'Try again' })).not.toBeInTheDocument();
  });

  it('offers to reload the page after a client-side exception', async () => {
    render(<ErrorScreen copy={clientException} />);
    expect(screen.getByRole('button', { name: 'Reload the page' })).toBeInTheDocument();
    expect(document.body).not.toHaveTextContent(/application error/i);
  });

  it('calls onRetry instead of reloading when a boundary can reset', async () => {
    const onRetry = jest.fn();
    render(<ErrorScreen copy={clientException} onRetry={onRetry} />);
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('shows a reference short and lets a person copy it', async () => {
    const user = userEvent.setup();
    const writeText = jest.spyOn(navigator.clipboard, 'writeText');
    render(<ErrorScreen copy={serverError} reference="9f1c2e3d4b5a69788796a5b4c3d2e1f0" />);
    const code = screen.getByText('9F1C2E3D');
    // The full id stays in the page for tests and tools; people read and copy the short form.
    expect(code).toHaveAttribute('data-reference', '9f1c2e3d4b5a69788796a5b4c3d2e1f0');
    // Nothing said to a screen reader before the copy; then that it is copied.
    expect(screen.getByRole('status')).toHaveTextContent(/^$/);
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('9F1C2E3D');
    expect(await screen.findByRole('button', { name: 'Copied' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(common.reference.copiedStatus);
  });

  it('keeps the reference readable when the clipboard refuses', async () => {
    const user = userEvent.setup();
    jest.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    render(<ErrorScreen copy={serverError} reference="abcdef0123456789abcdef0123456789" />);
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Select the reference to copy it');
    expect(screen.getByText('ABCDEF01')).toBeInTheDocument();
  });
});
