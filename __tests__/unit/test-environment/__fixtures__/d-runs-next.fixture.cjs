// Innocent: runs after c-leaves-slow-work, long enough for that file's timer to fire meanwhile.
test('takes a while', async () => {
  await new Promise((resolve) => setTimeout(resolve, 900));
});
