/**
 * The shortest wall time any schedule could give each CI rehearsal on this machine's two cores: the machine's busy
 * CPU-seconds over the run (the last line of each `ci-rehearsal-*.by-command.txt`, written by cpu-by-command.sh)
 * divided by two, in the order the folder's README lists them. A run whose floor is above 20 minutes could not have
 * finished within them however its parts were packed; only less CPU-work, or a quicker host for the same work, brings
 * it under.
 *
 *   npx tsx tools/ci-time/floor.ts [bench/latest/ci-time] > bench/latest/ci-time/floor.txt
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CORES = 2;
const LIMIT_S = 1200;

interface Run {
  readonly file: string;
  readonly wallS: number;
  readonly busyCpuS: number;
  readonly green: boolean;
}

/** A rehearsal's wall time, busy CPU-s and exit, from cpu-by-command.sh's last line; none for a partial record. */
export function parseRun(file: string, text: string): Run | undefined {
  const m = /^machine: (\d+) s wall, (\d+) CPU-s busy \(exit (\d+)\)$/m.exec(text);
  return m ? { file, wallS: Number(m[1]), busyCpuS: Number(m[2]), green: m[3] === '0' } : undefined;
}

/** The report: one line per rehearsal, then what they add up to. */
export function floorReport(dir: string): string {
  const lines: string[] = [];
  // in the order the folder's README lists them (when they ran), then by name
  const readme = readFileSync(join(dir, 'README.md'), 'utf8');
  const listed = (f: string) => (readme.includes(f) ? readme.indexOf(f) : Infinity);
  const runs = readdirSync(dir)
    .filter((f) => /^ci-rehearsal-.*\.by-command\.txt$/.test(f))
    .sort((a, b) => listed(a) - listed(b) || a.localeCompare(b))
    .flatMap((f) => parseRun(f, readFileSync(join(dir, f), 'utf8')) ?? []);
  lines.push('wall s  busy CPU-s  floor s  busy share  exit  file');
  for (const r of runs) {
    const floor = r.busyCpuS / CORES;
    const share = r.busyCpuS / (CORES * r.wallS);
    lines.push(
      `${String(r.wallS).padStart(6)}  ${String(r.busyCpuS).padStart(10)}  ${floor.toFixed(0).padStart(7)}  ` +
        `${(share * 100).toFixed(0).padStart(8)} %  ${r.green ? 'green' : 'red  '}  ${r.file}`,
    );
  }
  const under = runs.filter((r) => r.wallS < LIMIT_S);
  const floorOver = runs.filter((r) => r.busyCpuS / CORES > LIMIT_S);
  const shares = runs.map((r) => r.busyCpuS / (CORES * r.wallS));
  lines.push(
    `\n${runs.length} rehearsals; ${under.length} under ${LIMIT_S} s (busy ${Math.min(...under.map((r) => r.busyCpuS))} ` +
      `to ${Math.max(...under.map((r) => r.busyCpuS))} CPU-s); ${floorOver.length} with a floor over ${LIMIT_S} s ` +
      `(busy over ${CORES * LIMIT_S} CPU-s), none of which could have finished under it. The machine was busy ` +
      `${(Math.min(...shares) * 100).toFixed(0)} to ${(Math.max(...shares) * 100).toFixed(0)} % of each run's two cores.`,
  );
  return lines.join('\n') + '\n';
}

if (require.main === module) {
  process.stdout.write(floorReport(process.argv[2] ?? join(__dirname, '..', '..', 'bench', 'latest', 'ci-time')));
}
