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

/**
 * The event the SDK file dispatches on `document` as it runs, with its start function as `detail`.
 * A type, not a constant: each side writes the name as a literal typed with it (the compiler keeps
 * them equal), so no shared module is bundled into every page just to hold one string.
 */
export type SdkLoadedEvent = 'app-shell:sdk-loaded';
