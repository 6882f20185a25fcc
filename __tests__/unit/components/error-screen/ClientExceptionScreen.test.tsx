/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
import { render, screen, waitFor } from '@testing-library/react';
import { ClientExceptionScreen } from '../../../../components/error-screen/ClientExceptionScreen';
import { common as french } from '@lib/screens/fr/common';
import { clientException as frenchScreen } from '@lib/screens/fr/client-exception';

jest.mock('next/head', () => ({
  __esModule: true,
  default: jest.requireActual('../../support/render-with-head').InlineHead,
}));

const languages = jest.spyOn(navigator, 'languages', 'get');
afterEach(() => {
  delete (globalThis as { fetch?: unknown }).fetch;
});

describe('the client-exception screen', () => {
  // First: a failure is not kept, so the next screen asks again (the test after this one).
  it('stays in English when the words cannot be had: a failed fetch, an error answer', async () => {
    for (const fetch of [
      jest.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
      jest.fn(async () => ({ ok: false, json: async () => ({}) })),
    ]) {
      Object.assign(globalThis, { fetch });
      const { unmount } = render(<ClientExceptionScreen />);
      await waitFor(() => expect(fetch).toHaveBeenCalled());
      await new Promise((resolve) => setTimeout(resolve, 0));
      expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Sorry, this page stopped working');
      expect(screen.getByRole('main')).toHaveAttribute('lang', 'en');
      unmount();
    }
  });

  it('asks the server for the words of navigator.languages, and shows them with their lang and dir', async () => {
    languages.mockReturnValue(['fr-FR', 'en-US']);
    const fetch = jest.fn(async () => ({
      ok: true,
      json: async () => ({ words: french, screen: frenchScreen }),
    }));
    Object.assign(globalThis, { fetch });
    render(<ClientExceptionScreen reference="0123456789abcdef0123456789abcdef" />);
    await waitFor(() =>
      expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(
        'Désolé, cette page a cessé de fonctionner',
      ),
    );
    expect(fetch).toHaveBeenCalledWith('/_next/app-shell/words?languages=fr-FR,en-US');
    expect(screen.getByRole('main')).toHaveAttribute('lang', 'fr');
    expect(screen.getByRole('main')).toHaveAttribute('dir', 'ltr');
    expect(screen.getByText(/indiquez la référence/)).toBeInTheDocument();
  });

  // After the test above, which loaded the French words.
  it('shows words already loaded at once, in its first render, never English first', () => {
    const fetch = jest.fn();
    Object.assign(globalThis, { fetch });
    const headings: string[] = [];
    const { container } = render(<ClientExceptionScreen />, {
      // What the screen's first render put on the page, before any effect or promise ran.
      wrapper: function FirstRender({ children }) {
        return <div ref={(node) => void (node && headings.push(node.textContent ?? ''))}>{children}</div>;
      },
    });
    expect(headings[0]).toContain('Désolé, cette page a cessé de fonctionner');
    expect(container).toHaveTextContent('Désolé, cette page a cessé de fonctionner');
    expect(fetch).not.toHaveBeenCalled();
  });
});
