// docs/configuration.md and .env.example, rendered from the table of variables (./variables.ts).
// `npm run settings:docs` writes them; a unit test fails when the files differ from this.
import { GROUPS, VARIABLES, type Variable } from './variables';

const rows = Object.values(VARIABLES) as Variable<unknown>[];
const groups = Object.entries(GROUPS) as [keyof typeof GROUPS, string][];

/** Text as one cell of a Markdown table: a `|` in it would start the next cell. */
export const cell = (text: string) => text.replace(/\|/g, '\\|');

/** What a row accepts, and, where it refuses a value set to nothing, that too (./check.ts, `blank`). */
const accepts = (row: Variable<unknown>) =>
  row.check.blank ? `${row.check.accepts}; set but empty, it stops the start` : row.check.accepts;

export function renderReference(): string {
  const out = [
    '# Configuration',
    '',
    '<!-- Rendered from lib/config/variables.ts by `npm run settings:docs`; edit the table, not this file. -->',
    '',
    'Every variable is optional. `build`: read by `npm run build` and baked into the bundles, so',
    'changing it needs a new build. `start`: read by `npm start`, from the environment or `.env` files',
    '(the environment wins). A value the server cannot use stops it with one JSON line naming every',
    'bad variable, and exit code 1; a bad build-time value stops the build the same way.',
  ];
  for (const [group, title] of groups) {
    out.push(
      '',
      `## ${title}`,
      '',
      '| Variable | Read at | Default | Accepts | Meaning |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const row of rows.filter((r) => r.group === group)) {
      out.push(
        `| \`${row.name}\` | ${row.readAt} | ${cell(row.defaultText)} | ${cell(accepts(row))} | ${cell(row.meaning)} |`,
      );
    }
  }
  return `${out.join('\n')}\n`;
}

export function renderEnvExample(): string {
  const out = [
    '# Copy to .env (never commit it). Every variable is optional: unset, it takes its default.',
    '# Rendered from lib/config/variables.ts by `npm run settings:docs`; docs/configuration.md says more.',
  ];
  for (const [group, title] of groups) {
    out.push('', `# --- ${title} ---`);
    for (const row of rows.filter((r) => r.group === group)) {
      // A row that refuses an empty value is left commented out: a copy of this file as .env must start.
      const line = row.check.blank ? `# ${row.name}=` : `${row.name}=`;
      out.push(`# ${row.meaning} (${row.readAt}; default: ${row.defaultText})`, line);
    }
  }
  return `${out.join('\n')}\n`;
}
