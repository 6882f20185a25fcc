// Innocent: runs after c-leaves-slow-work, until that file's late work has run meanwhile.
const { existsSync } = require('node:fs');

test('waits while the work of the file before runs', async () => {
  const deadline = Date.now() + 10_000;
  while (!existsSync(String(process.env.LATE_WORK_MARKER)) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5));
});
