import { Component, type ErrorInfo, type ReactNode } from 'react';
import { isLostAsset } from '../../lib/fleet/recovery';

export interface FallbackProps {
  /** The error report's id, when the reporter gave one. */
  reference?: string;
  reset: () => void;
}

export interface ErrorBoundaryProps {
  children: ReactNode;
  fallback: (props: FallbackProps) => ReactNode;
  /** Hands the error on (to the reporter); may return a reference id. Must not throw. */
  onError?: (error: unknown, info: ErrorInfo) => string | undefined;
  /** When this changes (e.g. the route), a shown fallback is cleared. */
  resetKey?: unknown;
}

interface State {
  hasError: boolean;
  /** The error is a build file that did not load: the page is reloading, so nothing is shown. */
  lost?: boolean;
  reference?: string;
  resetKey?: unknown;
}

/**
 * A small error boundary of our own: @sentry/react's adds about 5-6 KB gzip to every page's
 * first-load JS, while this one hands errors to the lazily loaded SDK through `onError`.
 */
export class ErrorBoundary extends Component<ErrorBoundaryProps, State> {
  state: State = { hasError: false, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { hasError: true, lost: isLostAsset(error) };
  }

  static getDerivedStateFromProps(props: ErrorBoundaryProps, state: State): Partial<State> | null {
    if (props.resetKey !== state.resetKey) {
      return { hasError: false, lost: false, reference: undefined, resetKey: props.resetKey };
    }
    return null;
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    // A build file that did not load (React.lazy): not the application's error, so never reported,
    // and no screen: webpack's chunk loader has already reloaded the page (lib/fleet/recovery.ts).
    if (this.state.lost) return;
    let reference: string | undefined;
    try {
      reference = this.props.onError?.(error, info);
    } catch {
      // Reporting must never turn one failure into two.
    }
    if (reference) this.setState({ reference });
  }

  reset = () => {
    this.setState({ hasError: false, reference: undefined });
  };

  render() {
    if (this.state.hasError) {
      if (this.state.lost) return null;
      return this.props.fallback({ reference: this.state.reference, reset: this.reset });
    }
    return this.props.children;
  }
}
