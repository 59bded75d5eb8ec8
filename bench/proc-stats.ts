// Memory and CPU of a running process from Linux /proc (what `ps`/`time` report, without the tools).
import { execFileSync } from 'child_process';
import * as fs from 'fs';

export interface ProcStats {
  readonly rssMiB: number;
  /** VmHWM: the largest RSS the process ever had. */
  readonly peakRssMiB: number;
  /** User + system CPU time so far. */
  readonly cpuSeconds: number;
  /**
   * RssAnon now: the process's own memory (heap, stacks, buffers). The rest of its RSS (RssFile, RssShmem) is pages
   * of mapped files, most of them the node binary's: processes started from one binary share those in the page cache.
   */
  readonly privateMiB: number;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export function procStats(pid: number): ProcStats {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return {
    rssMiB: round(kb('VmRSS') / 1024),
    peakRssMiB: round(kb('VmHWM') / 1024),
    cpuSeconds: round(ticks / clockTicks()),
    privateMiB: round(kb('RssAnon') / 1024),
  };
}

/**
 * The largest RssAnon of each process, sampled every `everyMs` until `stop()`: Linux keeps a high-water mark of the
 * whole RSS only (VmHWM), so the peak of the private part is the largest sample (a spike between samples is missed).
 */
export function samplePrivatePeaks(pids: readonly number[], everyMs = 200): { stop(): number[] } {
  const peaks = pids.map(() => 0);
  const sample = () =>
    pids.forEach((pid, i) => {
      try {
        peaks[i] = Math.max(peaks[i], procStats(pid).privateMiB);
      } catch {
        // exited meanwhile: its last sample stands
      }
    });
  sample();
  const timer = setInterval(sample, everyMs).unref(); // never what keeps a failed run alive
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return [...peaks];
    },
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/** The pid of the process whose command line contains every one of `parts` (e.g. a binary and its port flag). */
export function findProcess(...parts: string[]): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (parts.every((p) => cmdline.some((arg) => arg.includes(p)))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}
