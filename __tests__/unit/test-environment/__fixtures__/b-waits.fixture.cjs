// The same work as a-leaves-work, waited for.
const state = Object.assign(globalThis, { lateWorkFixture: { reads: 0 } }).lateWorkFixture;

test('waits for its timer', async () => {
  await new Promise((resolve) => setTimeout(() => resolve(state.reads), 5));
});
