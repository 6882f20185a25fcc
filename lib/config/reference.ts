// docs/configuration.md and .env.example, rendered from the table of variables (./variables.ts).
// `npm run settings:docs` writes them; a unit test fails when the files differ from this.
import { GROUPS, VARIABLES, type Variable } from './variables';

const rows = Object.values(VARIABLES) as Variable<unknown>[];
const groups = Object.entries(GROUPS) as [keyof typeof GROUPS, string][];

/** Text as one cell of a Markdown table: a `|` in it would start the next cell. */
export const cell = (text: string) => text.replace(/\|/g, '\\|');

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
        `| \`${row.name}\` | ${row.readAt} | ${cell(row.defaultText)} | ${cell(row.check.accepts)} | ${cell(row.meaning)} |`,
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
      out.push(`# ${row.meaning} (${row.readAt}; default: ${row.defaultText})`, `${row.name}=`);
    }
  }
  return `${out.join('\n')}\n`;
}
