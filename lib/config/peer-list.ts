// FLEET_PEERS as the server reads it: the other instances of the fleet, as base URLs or as one DNS
// name that resolves to every pod (a Kubernetes headless Service). Checked once with the other
// settings (./variables.ts), so a bad list stops the start with one line.
import type { Check } from './check';

export type PeerSource =
  /** One instance: `http://10.0.3.7:3000`, as `http://host:port` with nothing after it. */
  | { kind: 'url'; base: string }
  /** Every address NAME resolves to, at PORT, resolved again as pods come and go. */
  | { kind: 'dns'; name: string; port: number };

/** More than this is a mistake: each is asked who it is every few seconds. */
export const MAX_PEER_SOURCES = 64;

const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

function parseOne(entry: string): PeerSource | string {
  if (entry.startsWith('dns:')) {
    const match = /^dns:([^:]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match || !HOST_NAME.test(match[1]!) || port < 1 || port > 65535)
      return `"${entry}" is not dns:NAME:PORT`;
    return { kind: 'dns', name: match[1]!, port };
  }
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    return `"${entry}" is neither a URL nor dns:NAME:PORT`;
  }
  // Plain HTTP: peers talk pod to pod on the app port, inside the NetworkPolicy (docs/fleet.md).
  if (url.protocol !== 'http:') return `"${entry}" must start with http://`;
  // Said without the entry: its password must not reach the log that the refusal goes to.
  if (url.username || url.password)
    return `the peer at http://${url.host} must not carry a user or a password`;
  // An http: URL's path is never empty: `http://peer` reads as `/`.
  if (url.search || url.hash || url.pathname !== '/')
    return `"${entry}" must be http://HOST:PORT with nothing after it`;
  return { kind: 'url', base: `http://${url.host}` };
}

export const peerList: Check<PeerSource[]> = {
  accepts:
    'comma-separated base URLs (http://10.0.3.7:3000) or dns:NAME:PORT; the instance itself may be among them',
  parse: (raw) => {
    const entries = raw
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length > MAX_PEER_SOURCES) return { problem: `must name at most ${MAX_PEER_SOURCES} peers` };
    const sources: PeerSource[] = [];
    for (const entry of entries) {
      const parsed = parseOne(entry);
      if (typeof parsed === 'string') return { problem: `has ${parsed}` };
      sources.push(parsed);
    }
    return sources.length > 0 ? { value: sources } : { problem: 'names no peer' };
  },
};
