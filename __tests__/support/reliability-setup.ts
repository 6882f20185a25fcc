// Builds what the suite runs against (the end-to-end tests' shared builds and its own) and starts a fresh
// results file.
import { mkdirSync, rmSync } from 'node:fs';
import { buildAll } from './builds';
import { RESULTS_JSONL, RESULTS_DIR } from './results';

export default async function globalSetup() {
  mkdirSync(RESULTS_DIR, { recursive: true });
  rmSync(RESULTS_JSONL, { force: true });
  await buildAll('reliability');
}
