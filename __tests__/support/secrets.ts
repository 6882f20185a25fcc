// The secret table: every shape of secret the scrubber must remove, with a marker that must not
// reach the ingest or a log line. Shared by the scrubber's unit tests and the end-to-end tests
// that carry the same secrets through a real browser and the real server.

export interface SecretCase {
  /** What kind of secret, as the report names it. */
  shape: string;
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
    text: 'upstream said 401 for Bearer sk_live_bearer123',
    secret: 'sk_live_bearer123',
  },
  { shape: 'Basic credential', text: 'auth header was Basic dXNlcjpodW50ZXIy', secret: 'dXNlcjpodW50ZXIy' },
  { shape: 'JWT', text: `token expired: ${JWT}`, secret: 'c2lnbmF0dXJlLW9mLXRoZS1qd3Q' },
  {
    shape: 'password=… in text',
    text: 'login failed with password=hunter2xyz for user 7',
    secret: 'hunter2xyz',
  },
  {
    shape: 'api_key: … in text',
    text: 'config {"api_key": "ak_secret_998"} rejected',
    secret: 'ak_secret_998',
  },
  {
    shape: 'e-mail address',
    text: 'no account for jane.secret@example.com',
    secret: 'jane.secret@example.com',
  },
  {
    shape: 'secret parameter in a URL',
    text: 'GET https://api.example.com/v1/items?page=2&access_token=tok_in_url_55 failed',
    secret: 'tok_in_url_55',
  },
  {
    shape: 'URL nested in a parameter',
    text: `redirect to /login?next=${encodeURIComponent('https://app.example.com/cb?token=nested_tok_77')} failed`,
    secret: 'nested_tok_77',
  },
  {
    shape: 'credentials in a URL',
    text: 'cannot reach https://admin:pa55word_in_url@db.example.com/',
    secret: 'pa55word_in_url',
  },
];
