/**
 * Settings a person must change: thrown by the readers (./settings.ts, ./reporting.ts) with one
 * line naming every bad variable. The server says it as that line, without a stack
 * (lib/server/cannot-start.ts): the fix is in the environment, not in the code the stack shows.
 */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
}
