// A server process's memory: resident, as the kernel counts it (Linux only, like CI), and its live
// heap as the server reports it when preloaded with memory-probe.cjs.
import { existsSync, readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';

export function rssMiB(pid: number | undefined): number {
  const kib = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]);
  return kib / 1024;
}

/** What memory-probe.cjs writes: process.memoryUsage() after a full GC, numbered. */
export interface MemoryReading {
  reading: number;
  rss: number;
  heapUsed: number;
  /** Memory of Buffers and other objects held outside V8's heap (includes arrayBuffers). */
  external: number;
}

/** Asks a server preloaded with memory-probe.cjs for a reading in `file`, and waits for it. */
export async function readMemory(child: ChildProcess, file: string): Promise<MemoryReading> {
  const before = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as MemoryReading).reading : 0;
  child.kill('SIGUSR2');
  const deadline = performance.now() + 10_000;
  while (performance.now() < deadline) {
    if (existsSync(file)) {
      const reading = JSON.parse(readFileSync(file, 'utf8')) as MemoryReading;
      if (reading.reading > before) return reading;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the server wrote no memory reading');
}
