/** @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom */
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { ErrorBoundary } from '../../../../components/error-boundary/ErrorBoundary';

let shouldThrow = true;
/** Called each time React tries to render the child. */
const attempt = jest.fn();

function Flaky() {
  attempt();
  if (shouldThrow) throw new Error('render failed');
  return <p>All good</p>;
}

function fallback({ reset, reference }: { reset: () => void; reference?: string }) {
  return (
    <div>
      <p>Fallback shown{reference ? ` ${reference}` : ''}</p>
      <button onClick={reset}>Try again</button>
    </div>
  );
}

beforeEach(() => {
  shouldThrow = true;
  attempt.mockClear();
  // React logs caught render errors; keep the test output readable.
  jest.spyOn(console, 'error').mockImplementation(() => {});
});

describe('ErrorBoundary', () => {
  it('shows the fallback when a child throws while rendering', () => {
    render(
      <ErrorBoundary fallback={fallback}>
        <Flaky />
      </ErrorBoundary>,
    );
    expect(screen.getByText('Fallback shown')).toBeInTheDocument();
    expect(screen.queryByText('All good')).not.toBeInTheDocument();
  });

  it('hands the error to onError once and shows the reference it returns', () => {
    const onError = jest.fn<string, [unknown]>(() => 'ref123');
    render(
      <ErrorBoundary fallback={fallback} onError={onError}>
        <Flaky />
      </ErrorBoundary>,
    );
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls[0]![0]).toEqual(new Error('render failed'));
    expect(screen.getByText('Fallback shown ref123')).toBeInTheDocument();
  });

  it('renders the children again after "try again" once the cause is gone', async () => {
    render(
      <ErrorBoundary fallback={fallback}>
        <Flaky />
      </ErrorBoundary>,
    );
    shouldThrow = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(screen.getByText('All good')).toBeInTheDocument();
  });

  it('renders the child again on "try again", and shows the fallback again if it still throws', async () => {
    const onError = jest.fn<string, [unknown]>();
    onError.mockReturnValueOnce('first').mockReturnValueOnce('second');
    render(
      <ErrorBoundary fallback={fallback} onError={onError}>
        <Flaky />
      </ErrorBoundary>,
    );
    expect(screen.getByText('Fallback shown first')).toBeInTheDocument();
    const before = attempt.mock.calls.length;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    // The boundary reset and tried the child again: a new attempt, a new error, a new reference.
    expect(attempt.mock.calls.length).toBeGreaterThan(before);
    expect(onError).toHaveBeenCalledTimes(2);
    expect(screen.getByText('Fallback shown second')).toBeInTheDocument();
  });

  it('clears the fallback when the reset key changes (a new route)', async () => {
    function Harness() {
      const [route, setRoute] = useState('/a');
      return (
        <>
          <button onClick={() => setRoute('/b')}>Navigate</button>
          <ErrorBoundary fallback={fallback} resetKey={route}>
            <Flaky />
          </ErrorBoundary>
        </>
      );
    }
    render(<Harness />);
    expect(screen.getByText('Fallback shown')).toBeInTheDocument();
    shouldThrow = false;
    await userEvent.click(screen.getByRole('button', { name: 'Navigate' }));
    expect(screen.getByText('All good')).toBeInTheDocument();
  });

  it('still shows the fallback when onError itself throws', () => {
    render(
      <ErrorBoundary
        fallback={fallback}
        onError={() => {
          throw new Error('reporter broke');
        }}
      >
        <Flaky />
      </ErrorBoundary>,
    );
    expect(screen.getByText('Fallback shown')).toBeInTheDocument();
  });
});

describe('ErrorBoundary and a lazy part whose build file is gone (React.lazy)', () => {
  function LostPart(): never {
    const error = new Error('Loading chunk 3 failed.');
    error.name = 'ChunkLoadError';
    throw error;
  }

  it('shows nothing while the page reloads (webpack’s loader has reloaded it), and reports nothing', () => {
    const onError = jest.fn();
    const { container } = render(
      <ErrorBoundary fallback={fallback} onError={onError}>
        <LostPart />
      </ErrorBoundary>,
    );
    expect(screen.queryByText('Fallback shown')).not.toBeInTheDocument();
    expect(container).toBeEmptyDOMElement();
    expect(onError).not.toHaveBeenCalled();
  });

  it('treats any other error as the application’s', () => {
    const onError = jest.fn(() => 'ref1');
    render(
      <ErrorBoundary fallback={fallback} onError={onError}>
        <Flaky />
      </ErrorBoundary>,
    );
    expect(screen.getByText('Fallback shown ref1')).toBeInTheDocument();
  });
});
