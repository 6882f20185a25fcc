// Leaves work running: 5 ms after its only test returns, a timer reads state this file put on its
// global, by then deleted.
const state = Object.assign(globalThis, { lateWorkFixture: { reads: 0 } }).lateWorkFixture;

test('returns before its timer fires', () => {
  setTimeout(() => state.reads, 5);
});
