// Leaves work running that fires long after the file's end, while the next file runs. The work
// marks that it ran (a file the next fixture waits for), then reads this file's state (line 9).
const { writeFileSync } = require('node:fs');
const state = Object.assign(globalThis, { lateWorkFixture: { reads: 0 } }).lateWorkFixture;

test('returns before its slow timer fires', () => {
  setTimeout(() => {
    writeFileSync(String(process.env.LATE_WORK_MARKER), 'ran');
    return state.reads;
  }, 300);
});
