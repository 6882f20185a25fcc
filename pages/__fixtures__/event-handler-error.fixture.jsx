// Test-only route (see next.config.ts): an error thrown in an event handler, which React leaves
// to the browser's global error handler.
export default function EventHandlerErrorFixture() {
  return (
    <main>
      <h1>Event handler fixture</h1>
      <button
        type="button"
        onClick={() => {
          throw new Error('Fixture event handler error');
        }}
      >
        Throw from a click
      </button>
    </main>
  );
}
