import { readFileSync } from 'node:fs';

/** The peak resident set (VmHWM) of a live process, in kB, from /proc; undefined once it is gone. */
export function vmHwmKb(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}
