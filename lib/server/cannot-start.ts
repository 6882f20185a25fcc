// A start that cannot go on for a reason the person starting the server can fix (no build yet, a
// bad setting, a port in use) is said in one sentence, without a stack: the stack would point into
// the server's own code, which is not where the fix is. Any other failure keeps its stack.
import { ConfigurationError } from '../config/configuration-error';
import { log } from '../log/logger';

/** Thrown where the server finds a reason of that kind itself; its message is the sentence. */
export class CannotStart extends Error {
  override name = 'CannotStart';
}

/** The listen failures a person fixes by choosing another port or freeing this one. */
interface ListenFailure {
  code?: unknown;
  syscall?: unknown;
  port?: unknown;
  /** The setting that chose the port (PORT, MANAGEMENT_PORT). */
  setting?: unknown;
  /** The name a lookup failed for (Node's getaddrinfo errors), or the HOST the listener was given. */
  hostname?: unknown;
  host?: unknown;
  /** The address a listen was refused (EADDRNOTAVAIL). */
  address?: unknown;
}

/** The lookup failures of a name that resolves to nothing (or not now): HOST names no address. */
const UNRESOLVED: ReadonlySet<unknown> = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'EAI_NODATA',
]);
/** What HOST may be instead, in every sentence about it. */
const HOST_ADVICE =
  'set HOST to an address of this machine (0.0.0.0 for all of them, 127.0.0.1 for this machine alone)';

/**
 * The sentence for a failure a person can fix, or null for any other failure. Never throws: it
 * runs on the way out of a failed start.
 */
export function cannotStartReason(error: unknown): string | null {
  try {
    // A refused setting: the readers' one line naming every bad variable.
    if (error instanceof CannotStart || error instanceof ConfigurationError) return error.message;
    // (null and undefined throw here: the catch below answers null for them.)
    const { code, syscall, port, setting, hostname, host, address } = error as ListenFailure;
    const named = [hostname, host, address].find((value) => typeof value === 'string');
    const which = named ? `HOST ${named}` : 'HOST';
    if (UNRESOLVED.has(code)) return `${which} names no address this machine can find: ${HOST_ADVICE}.`;
    if (code === 'EADDRNOTAVAIL') return `${which} is not an address of this machine: ${HOST_ADVICE}.`;
    if (syscall !== 'listen' || typeof port !== 'number') return null;
    const name = typeof setting === 'string' ? setting : 'PORT';
    if (code === 'EADDRINUSE')
      return `Port ${port} is already in use (${name}): stop what listens there, or start with ${name} set to a free port.`;
    if (code === 'EACCES')
      return `This user may not listen on port ${port} (${name}): start with ${name} set to 1024 or above.`;
    return null;
  } catch {
    return null;
  }
}

/**
 * Says it: as the sentence alone at a terminal, where a person reads it; as one JSON log line
 * elsewhere (a container's log collector), like every other line the server writes.
 */
export function sayCannotStart(
  sentence: string,
  stream: Pick<NodeJS.WriteStream, 'isTTY' | 'write'> = process.stderr,
): void {
  if (stream.isTTY) stream.write(`${sentence}\n`);
  else log('error', 'server.cannot_start', { message: sentence });
}
