import type { ServerResponse } from 'node:http';

/** Adds `field` to the answer's Vary, keeping what is there and never listing it twice. */
export function addVary(res: Pick<ServerResponse, 'getHeader' | 'setHeader'>, field: string): void {
  const prior = res.getHeader('Vary');
  const fields = (Array.isArray(prior) ? prior.join(',') : String(prior ?? ''))
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (fields.includes('*') || fields.some((name) => name.toLowerCase() === field.toLowerCase())) return;
  res.setHeader('Vary', [...fields, field].join(', '));
}
