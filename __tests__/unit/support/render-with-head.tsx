// next/head only writes to <head> inside a running Next app; in jsdom we render its children in
// place, and React 19 hoists the <title> into document.head, where a test can read it.
import type { ReactNode } from 'react';

export function InlineHead({ children }: { children?: ReactNode }) {
  return <>{children}</>;
}

export function titleText(): string {
  return document.title;
}
