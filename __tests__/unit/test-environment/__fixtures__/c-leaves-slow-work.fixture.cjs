// Leaves work running that fires long after the file's end, while the next file runs.
const state = Object.assign(globalThis, { lateWorkFixture: { reads: 0 } }).lateWorkFixture;

test('returns before its slow timer fires', () => {
  setTimeout(() => state.reads, 300);
});
