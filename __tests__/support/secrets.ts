// The secret table: every shape of secret the scrubber must remove, with a marker that must not
// reach the ingest or a log line. Shared by the scrubber's unit tests and the end-to-end tests
// that carry the same secrets through a real browser and the real server.

export interface SecretCase {
  /** What kind of secret, as the report names it. */
  shape: string;
  /**
   * The entry of lib/reporting/scrub/patterns.ts, or the rule of lib/reporting/scrub/index.ts
   * (SCRUB_RULES), that must catch it: every entry and rule has at least one row.
   */
  rule: string;
  /** Free text carrying the secret, as an error message would. */
  text: string;
  /** The part that must never leave. */
  secret: string;
}

const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzZWNyZXQtand0LXVzZXIifQ.c2lnbmF0dXJlLW9mLXRoZS1qd3Q';

export const SECRET_CASES: SecretCase[] = [
  {
    shape: 'Bearer credential',
    rule: 'http-credential',
    text: 'upstream said 401 for Bearer sk_live_bearer123',
    secret: 'sk_live_bearer123',
  },
  {
    shape: 'Basic credential',
    rule: 'http-credential',
    text: 'auth header was Basic dXNlcjpodW50ZXIy',
    secret: 'dXNlcjpodW50ZXIy',
  },
  {
    shape: 'Authorization header of another scheme',
    rule: 'authorization-header',
    text: 'upstream refused Authorization: Negotiate YIIGhgYJKoZIhvcSAQICAQBuggY1 for the batch',
    secret: 'YIIGhgYJKoZIhvcSAQICAQBuggY1',
  },
  { shape: 'JWT', rule: 'jwt', text: `token expired: ${JWT}`, secret: 'c2lnbmF0dXJlLW9mLXRoZS1qd3Q' },
  {
    shape: 'password=… in text',
    rule: 'secret-named-field',
    text: 'login failed with password=hunter2xyz for user 7',
    secret: 'hunter2xyz',
  },
  {
    shape: 'api_key: … in text',
    rule: 'secret-named-field',
    text: 'config {"api_key": "ak_secret_998"} rejected',
    secret: 'ak_secret_998',
  },
  {
    shape: 'quoted password with spaces',
    rule: 'secret-named-field',
    text: 'login rejected: password: "horse battery staple" for user 9',
    secret: 'horse battery staple',
  },
  {
    shape: 'pin field',
    rule: 'secret-named-field',
    text: 'card check failed with pin=73916482 at the terminal',
    secret: '73916482',
  },
  {
    // The row's secret is the pair: a 4-digit code alone could stand anywhere in a stack trace.
    shape: 'cvv field',
    rule: 'secret-named-field',
    text: 'payment declined (cvv=8302, expiry 12/29)',
    secret: 'cvv=8302',
  },
  {
    shape: 'e-mail address',
    rule: 'email',
    text: 'no account for jane.secret@example.com',
    secret: 'jane.secret@example.com',
  },
  {
    shape: 'secret parameter in a URL',
    rule: 'url-parameter',
    text: 'GET https://api.example.com/v1/items?page=2&access_token=tok_in_url_55 failed',
    secret: 'tok_in_url_55',
  },
  {
    shape: 'URL nested in a parameter',
    rule: 'nested-url',
    text: `redirect to /login?next=${encodeURIComponent('https://app.example.com/cb?token=nested_tok_77')} failed`,
    secret: 'nested_tok_77',
  },
  {
    shape: 'credentials in a URL',
    rule: 'url-credentials',
    text: 'cannot reach https://admin:pa55word_in_url@db.example.com/',
    secret: 'pa55word_in_url',
  },
  {
    shape: 'password in a database URL',
    rule: 'url-credentials',
    text: 'connect ECONNREFUSED postgres://app:s3cr3t-db-pass@10.0.3.7:5432/orders',
    secret: 's3cr3t-db-pass',
  },
  {
    shape: 'password in a cache URL',
    rule: 'url-credentials',
    text: 'redis error at redis://default:r3dis-pass-77@10.0.4.2:6379/0',
    secret: 'r3dis-pass-77',
  },
  {
    shape: 'PEM private key',
    rule: 'pem-private-key',
    text: 'bad key: -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7fakeKeyMaterialQx\n-----END RSA PRIVATE KEY-----',
    secret: 'MIIEpAIBAAKCAQEA7fakeKeyMaterialQx',
  },
  {
    shape: 'card number with spaces',
    rule: 'card-number',
    text: 'charge failed for card 4111 1111 1111 1111 (visa)',
    secret: '4111 1111 1111 1111',
  },
  {
    shape: 'card number without spaces',
    rule: 'card-number',
    text: 'charge failed for card 5500005555555559',
    secret: '5500005555555559',
  },
  {
    // The longest a card number is (19 digits, as some Maestro and UnionPay cards are).
    shape: 'card number of 19 digits',
    rule: 'card-number',
    text: 'refund failed for card 6304900177402924416 (maestro)',
    secret: '6304900177402924416',
  },
  {
    shape: 'AWS access key id',
    rule: 'aws-access-key-id',
    text: 'S3 PutObject denied for AKIAIOSFODNN7EXAMPLE',
    secret: 'AKIAIOSFODNN7EXAMPLE',
  },
  {
    shape: 'GitHub token',
    rule: 'github-token',
    text: 'clone failed with ghp_0123456789abcdefghijABCDEFGHIJ012345',
    secret: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  },
  {
    shape: 'GitLab token',
    rule: 'gitlab-token',
    text: 'pipeline trigger glpat-Ab3dEf6hIj9kLm2nOp5q refused',
    secret: 'glpat-Ab3dEf6hIj9kLm2nOp5q',
  },
  {
    shape: 'Slack token',
    rule: 'slack-token',
    text: 'slack post failed: xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp',
    secret: 'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp',
  },
  {
    shape: 'Slack webhook',
    rule: 'slack-webhook',
    text: 'alert not sent to hooks.slack.com/services/T00000000/B00000000/XXXXwebhookXXXX',
    secret: 'XXXXwebhookXXXX',
  },
  {
    shape: 'Stripe key',
    rule: 'stripe-key',
    text: 'stripe said 401 for sk_live_4eC39HqLyjWDarjtT1zdp7dc',
    secret: '4eC39HqLyjWDarjtT1zdp7dc',
  },
  {
    shape: 'Google API key',
    rule: 'google-api-key',
    text: 'maps quota exceeded for key AIzaSyA-1234567890abcdefghijklmnopqrstu',
    secret: 'AIzaSyA-1234567890abcdefghijklmnopqrstu',
  },
  {
    shape: 'npm token',
    rule: 'npm-token',
    text: 'publish failed: npm_abcdefghijABCDEFGHIJ0123456789klmnop',
    secret: 'npm_abcdefghijABCDEFGHIJ0123456789klmnop',
  },
  {
    shape: 'OpenAI-style key',
    rule: 'openai-key',
    text: 'completion failed for sk-proj-AbCdEfGhIjKlMnOpQrStUvWx',
    secret: 'AbCdEfGhIjKlMnOpQrStUvWx',
  },
  {
    shape: 'SendGrid key',
    rule: 'sendgrid-key',
    text: `mail failed with SG.${'a'.repeat(22)}.${'B'.repeat(43)}`,
    secret: 'B'.repeat(43),
  },
];

/** Objects whose keys are the secret: scrubbed as keys, not only as values. */
export const SECRET_KEY_CASES: {
  shape: string;
  rule: 'object-key';
  value: Record<string, unknown>;
  secret: string;
}[] = [
  {
    shape: 'e-mail address as a key',
    rule: 'object-key',
    value: { 'holder@example.com': 3 },
    secret: 'holder@example.com',
  },
  {
    shape: 'token as a key',
    rule: 'object-key',
    value: { ghp_9876543210abcdefghijABCDEFGHIJ987654: true },
    secret: 'ghp_9876543210abcdefghijABCDEFGHIJ987654',
  },
];
