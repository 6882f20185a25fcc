// A server process's resident memory, as the kernel counts it (Linux only, like CI).
import { readFileSync } from 'node:fs';

export function rssMiB(pid: number | undefined): number {
  const kib = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]);
  return kib / 1024;
}
