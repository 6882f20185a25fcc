// The one table of what the scrubber looks for: the shapes of secret it removes from any text,
// wherever they stand (in the order they are applied), the names whose values are secret, and the
// shapes of free text it reads (name=value pairs, URLs, e-mail addresses). The rest of ./ applies
// them: ./text.ts to text and URLs, ./deep.ts to any value, ./event.ts to an event. The floor is what Sentry's own ingest (Relay) scrubs by
// default (PEM keys, card numbers, credentials in URLs, authorization headers), plus the token
// formats that secret scanners know. Every entry has a row in __tests__/support/secrets.ts, which
// the unit tests and the browser and server end-to-end tests all run.
// Every pattern is linear: no nested quantifiers, and every open-ended run is bounded.

export interface SecretPattern {
  /** Names the shape in tests and docs. */
  name: string;
  pattern: RegExp;
  /** The replacement; the match goes whole when absent. */
  replace?: (match: string, ...groups: string[]) => string;
}

export const FILTERED = '[Filtered]';

/** Luhn's checksum, which every payment card number passes (and 9 in 10 other digit runs fail). */
export function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      // Stryker disable next-line EqualityOperator: a doubled digit is even, never 9
      if (digit > 9) digit -= 9;
    }
    // Stryker disable next-line AssignmentOperator: a sum and its negative are multiples of 10 together
    sum += digit;
  }
  return sum % 10 === 0;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    // The whole block, up to its END line or, cut off, to the end of the text.
    name: 'pem-private-key',
    pattern: /-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY-----[^]*?(?:-----END[A-Z0-9 ]{0,40} PRIVATE KEY-----|$)/g,
  },
  {
    // `postgres://app:pw@10.0.3.7:5432`, `redis://:pw@cache`: any scheme, up to the authority's last @.
    name: 'url-credentials',
    pattern: /\b([a-z][a-z0-9+.-]{0,30}:\/\/)[^\s/?#"'<>]{1,512}@/gi,
    replace: (_match, scheme) => `${scheme}${FILTERED}@`,
  },
  {
    // `Authorization: Negotiate …`, `"proxy-authorization": "…"`: the whole value, whatever its scheme.
    name: 'authorization-header',
    pattern: /\b((?:proxy-)?authorization["']?\s{0,8}[:=]\s{0,8}["']?)[^"'\r\n]{1,4096}/gi,
    replace: (_match, name) => `${name}${FILTERED}`,
  },
  {
    // A credential after an HTTP authentication scheme, wherever it is quoted.
    name: 'http-credential',
    pattern:
      /\b(Bearer|Basic|Token|Digest|Negotiate|NTLM|ApiKey|Api-Key|AWS4-HMAC-SHA256|HOBA|Mutual|SCRAM-SHA-1|SCRAM-SHA-256|vapid)(\s+)[A-Za-z0-9._~+/=:-]{1,4096}/gi,
    replace: (_match, scheme, space) => `${scheme}${space}${FILTERED}`,
  },
  {
    // Three base64url parts, the first a JSON header (`{"` encodes as `eyJ`).
    name: 'jwt',
    pattern: /\beyJ[A-Za-z0-9_-]{4,4096}\.[A-Za-z0-9_-]{4,8192}\.[A-Za-z0-9_-]{0,4096}/g,
  },
  {
    name: 'aws-access-key-id',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[A-Z0-9]{16}\b/g,
  },
  {
    name: 'github-token',
    pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g,
  },
  { name: 'gitlab-token', pattern: /\bglpat-[A-Za-z0-9_-]{20,255}/g },
  { name: 'slack-token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,255}/g },
  {
    name: 'slack-webhook',
    pattern: /\bhooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9/_-]{1,255}/g,
  },
  {
    name: 'stripe-key',
    pattern: /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,255}|\bwhsec_[A-Za-z0-9]{16,255}/g,
  },
  { name: 'google-api-key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { name: 'npm-token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'openai-key', pattern: /\bsk-(?:proj-|ant-|svcacct-)?[A-Za-z0-9_-]{20,255}/g },
  { name: 'sendgrid-key', pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
  {
    // 13 to 19 digits, in groups or not, standing alone, that pass Luhn's check: payment cards.
    // Runs that fail it (most ids and timestamps) stay, and so do digits inside a word (hex ids).
    name: 'card-number',
    pattern: /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g,
    replace: (match) => (passesLuhn(match.replace(/[ -]/g, '')) ? FILTERED : match),
  },
];

/** Every pattern of the table applied to `text`, in order. */
export function scrubSecretShapes(text: string): string {
  let out = text;
  for (const { pattern, replace } of SECRET_PATTERNS) {
    out = replace ? out.replace(pattern, replace) : out.replace(pattern, FILTERED);
  }
  return out;
}

/**
 * Words that make a field or parameter name secret, matched anywhere in the name (`x-api-key`,
 * `resetToken`), case aside; each is a regular-expression fragment. Over-matching is the safe
 * direction.
 */
export const SECRET_NAME_WORDS = [
  'token',
  'code',
  'key',
  'secret',
  'passw',
  'pwd',
  'passphrase',
  'session',
  'sid',
  'auth',
  'jwt',
  'bearer',
  'signature',
  'sig',
  'credential',
  'otp',
  'email',
  'e-mail',
  'mail',
  'ticket',
  'nonce',
  'state',
  'access',
  'refresh',
  'cookie',
  'private',
  'cvv',
  'cvc',
  'ccv',
  'card.?num',
  'iban',
  'ssn',
];
/** Words secret only standing alone (`pin`, `user_pin`), not inside another (`shipping`). */
export const SECRET_NAME_WHOLE_WORDS = ['pin'];

export const SECRET_NAME = new RegExp(
  [...SECRET_NAME_WORDS, ...SECRET_NAME_WHOLE_WORDS.map((word) => `(?:^|[^a-z])${word}(?:$|[^a-z])`)].join(
    '|',
  ),
  'i',
);

export const EMAIL = /[^\s@/?#&=:;,"'<>()[\]]{1,256}(?:@|%40)[^\s@/?#&=:;,"'<>()[\]]{1,256}\.[a-z]{2,}/gi;

/**
 * `name=value` or `name: value` in free text, the name possibly quoted (JSON, logs). A quoted
 * value is taken whole, spaces and all (`"password": "correct horse"`); an unquoted one to the
 * next space or separator.
 */
// An unquoted value is taken whole or not at all (a lookahead is atomic), and never ends in `:` or
// `=`: in `failed: password: "x y"`, `password:` is the next name, not the value of `failed`.
export const NAME_VALUE =
  /(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,128})\1(\s{0,8}[=:]\s{0,8})(?:"([^"\r\n]{0,2048})"|'([^'\r\n]{0,2048})'|(?=([^\s&;,"'<>]{1,4096}))\6(?<![=:]))/g;
/** Absolute URLs in free text, of any scheme (`https://`, `postgres://`, `redis://`). */
export const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s"'<>]{1,8192}/gi;
