// Waits for a condition the test cannot await directly, and gives up with an error well before the
// test's own timeout: a loop left polling after a failed test would keep Jest from ever exiting.

export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 4000,
  everyMs = 2,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`never held: ${condition.toString()}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
