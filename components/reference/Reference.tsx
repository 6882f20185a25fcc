import { useState } from 'react';
import type { CommonCopy } from '../../lib/screens/types';
import { useHydrated } from '../../lib/client/use-hydrated';
import { shortReference } from '../../lib/reporting/reference';

// Sentry event ids are 32 hex digits; the first 8 are enough to quote, and every report carries
// them as its `reference` tag, so an operator can search for what a person reads out.

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission or API (plain http, old browser): the code stays selectable by hand.
    return false;
  }
}

export function Reference({ id, words }: { id: string; words: CommonCopy['reference'] }) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState<boolean | null>(null);
  const short = shortReference(id);
  return (
    <p className="es-reference">
      {words.before}{' '}
      <code className="es-code" data-reference={id}>
        {short}
      </code>
      {hydrated && (
        <button
          type="button"
          className="es-copy"
          onClick={() => {
            void copyText(short).then(setCopied);
          }}
        >
          {copied ? words.copied : words.copy}
        </button>
      )}
      <span role="status" className="visually-hidden">
        {copied === true ? words.copiedStatus : copied === false ? words.selectToCopy : ''}
      </span>
    </p>
  );
}
