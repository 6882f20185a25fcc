// Test-only route (see next.config.ts): a dynamic route whose segment is a secret, with buttons
// that throw each case of the secret table (__tests__/support/secrets.ts) from a click, and one
// that rejects with a plain object carrying an Authorization header.
import { SECRET_CASES } from '../../../__tests__/support/secrets';

export default function SecretsFixture() {
  return (
    <main>
      <h1>Secrets fixture</h1>
      {SECRET_CASES.map((secretCase, index) => (
        <button
          key={secretCase.shape}
          type="button"
          onClick={() => {
            throw new Error(`Fixture secret ${index}: ${secretCase.text}`);
          }}
        >
          {`Throw case ${index}`}
        </button>
      ))}
      <button
        type="button"
        onClick={() => {
          void Promise.reject({
            fixture: 'secret object',
            headers: { Authorization: 'Bearer sk_obj_header_31' },
          });
        }}
      >
        Reject with an object
      </button>
    </main>
  );
}
