import { writeFileSync } from 'node:fs';
import { formatTable, readResults, RESULTS_TABLE } from './results';

export default async function globalTeardown() {
  const rows = readResults();
  if (rows.length === 0) return;
  const table = formatTable(rows);
  writeFileSync(RESULTS_TABLE, `# Reliability suite, ${new Date().toISOString()}\n\n${table}\n`);
  process.stdout.write(`\nReliability suite results (also in test-results/reliability.md):\n\n${table}\n\n`);
}
