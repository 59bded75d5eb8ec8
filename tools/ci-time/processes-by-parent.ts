/**
 * Which processes a run started, and from where: reads a Linux process accounting file (`acct_v3` records, as
 * `cpu-by-command.sh` keeps it with KEEP_ACCT) and sums, by command, the processes, their CPU-seconds and their minor
 * page faults, then counts processes by parent command → command. `sa` gives no parents and no faults; on this CI
 * machine a process start costs a few milliseconds and a page fault 3-25 µs (host-speed.js), so the many short
 * processes (a probe's runc exec, a loop's `date`) matter beyond the CPU their records show (under a tick: 0).
 * A parent that was still running when the file was read is named by its live command line.
 *
 *   npx tsx tools/ci-time/processes-by-parent.ts ACCT_FILE [TOP] > out.txt
 */
import { readFileSync } from 'node:fs';

const RECORD = 64; // sizeof(struct acct_v3)
const AHZ = 100;

interface Exited {
  readonly command: string;
  readonly cpuTicks: number;
  readonly minorFaults: number;
  readonly pid: number;
  readonly ppid: number;
}

/** comp_t: a 13-bit mantissa and a 3-bit base-8 exponent. */
function compT(v: number): number {
  return (v & 0x1fff) * 8 ** (v >> 13);
}

function read(file: string): Exited[] {
  const data = readFileSync(file);
  const out: Exited[] = [];
  for (let off = 0; off + RECORD <= data.length; off += RECORD) {
    if (data.readUInt8(off + 1) !== 3) continue; // ac_version: only v3 records carry pid and ppid
    const comm = data.subarray(off + 48, off + 64);
    const end = comm.indexOf(0);
    out.push({
      command: comm.subarray(0, end < 0 ? 16 : end).toString('utf8'),
      pid: data.readUInt32LE(off + 16),
      ppid: data.readUInt32LE(off + 20),
      cpuTicks: compT(data.readUInt16LE(off + 32)) + compT(data.readUInt16LE(off + 34)),
      minorFaults: compT(data.readUInt16LE(off + 42)),
    });
  }
  return out;
}

function liveCommand(pid: number): string {
  try {
    const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').replace(/\s+/g, ' ');
    return `(running) ${line.slice(0, 70).trim()}`;
  } catch {
    return '?';
  }
}

function main(): void {
  const [file, top = '30'] = process.argv.slice(2);
  if (!file) throw new Error('usage: processes-by-parent.ts ACCT_FILE [TOP]');
  const records = read(file);
  const commandOf = new Map(records.map((r) => [r.pid, r.command]));
  const byCommand = new Map<string, { processes: number; cpuTicks: number; minorFaults: number }>();
  const byParent = new Map<string, number>();
  for (const r of records) {
    const c = byCommand.get(r.command) ?? { processes: 0, cpuTicks: 0, minorFaults: 0 };
    c.processes++;
    c.cpuTicks += r.cpuTicks;
    c.minorFaults += r.minorFaults;
    byCommand.set(r.command, c);
    if (!commandOf.has(r.ppid)) commandOf.set(r.ppid, liveCommand(r.ppid));
    const key = `${commandOf.get(r.ppid)} -> ${r.command}`;
    byParent.set(key, (byParent.get(key) ?? 0) + 1);
  }
  const n = Number(top);
  const sum = (f: (r: Exited) => number) => records.reduce((s, r) => s + f(r), 0);
  const lines = [
    `${records.length} processes ended, ${(sum((r) => r.cpuTicks) / AHZ).toFixed(0)} CPU-s, ${sum((r) => r.minorFaults)} minor page faults`,
    'processes   CPU-s   minor faults  command',
    ...[...byCommand]
      .sort((a, b) => b[1].processes - a[1].processes)
      .slice(0, n)
      .map(
        ([command, c]) =>
          `${String(c.processes).padStart(9)} ${(c.cpuTicks / AHZ).toFixed(1).padStart(7)} ${String(c.minorFaults).padStart(14)}  ${command}`,
      ),
    'processes  parent -> command',
    ...[...byParent]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, count]) => `${String(count).padStart(9)}  ${key}`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
