// Test-only route (see next.config.ts): a promise rejected with nobody to handle it.
export default function UnhandledRejectionFixture() {
  return (
    <main>
      <h1>Unhandled rejection fixture</h1>
      <button
        type="button"
        onClick={() => {
          void Promise.reject(new Error('Fixture unhandled rejection'));
        }}
      >
        Reject a promise
      </button>
    </main>
  );
}
