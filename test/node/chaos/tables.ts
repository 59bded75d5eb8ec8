/**
 * Prints the README's chaos tables (markdown) from the committed reports:
 *
 *   npx tsx test/node/chaos/tables.ts bench/latest/chaos-sync.json bench/latest/chaos-async.json
 */
import { readFileSync } from 'fs';
import { ChaosReport } from './run';

const s = (x: number | undefined) => (x === undefined ? '—' : x.toFixed(1));

export function tables(reports: readonly ChaosReport[]): string {
  const out: string[] = [];
  for (const r of reports) {
    out.push(`${r.synchronous ? 'synchronous: true' : 'asynchronous'} — seed ${r.seed}, ${r.faults.length} faults in ${(r.durationSeconds / 60).toFixed(0)} min (load average ${r.loadAverage.start.toFixed(1)} → ${r.loadAverage.end.toFixed(1)}), ${r.acknowledged} acknowledged writes (${r.acknowledgedPerSecond}/s), ${r.lost} lost, ${r.fencingViolations.length} fencing violations, ${r.secondPrimaryRounds.length} probe rounds with a second primary, timelines ${r.timeline.chain[0]}→${r.timeline.chain[r.timeline.chain.length - 1]} (${r.timeline.problems.length ? 'NOT linear' : 'linear'}); ${r.passed ? 'passed' : `FAILED: ${r.verdicts.join('; ')}`}`);
    out.push('');
    out.push(`| fault | n | failovers | failover s p50 / max | write outage s p50 / max | back (every check) s p50 / max | within ${r.recoveryBoundSeconds} s | lost rows (max per fault) | lost s of writes (max) |`);
    out.push('|---|---|---|---|---|---|---|---|---|');
    for (const [kind, k] of Object.entries(r.byKind)) {
      out.push(`| ${kind} | ${k.faults} | ${k.failovers} | ${s(k.failoverP50)} / ${s(k.failoverMax)} | ${s(k.outageP50)} / ${s(k.outageMax)} | ${s(k.recoveryP50)} / ${s(k.recoveryMax)} | ${k.recoveredWithinBound}/${k.faults} | ${k.lostRows} (${k.lostRowsMax}) | ${s(k.lostSecondsMax)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

if (require.main === module) {
  process.stdout.write(tables(process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, 'utf8')) as ChaosReport)));
}
