// What the first-load reporter and the lazily loaded SDK file agree on.

/**
 * What caught the error. Only the boundary handles what it catches (it shows a fallback and can
 * retry); for the others the error reached the visitor unhandled.
 */
export type Mechanism = 'react-error-boundary' | 'next-error-page' | 'onerror' | 'onunhandledrejection';

/** What the SDK file's start function returns. */
export interface LoadedSdk {
  capture: (error: unknown, id: string, mechanism: Mechanism) => void;
}
