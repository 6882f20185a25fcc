// The CPU a process has used so far (user and system), read from /proc: for tests that weigh what a
// stranger's requests cost the server, compared with a baseline measured in the same run.
import { readFileSync } from 'node:fs';

/** Milliseconds of CPU `pid` has used, or null once it is gone. */
export function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
