// A controller series stopped before its last run (the machine's time ran out): its results.json rebuilt from
// what the series wrote after every run (runs.partial.json, idle.partial.json), with the same summary as
// run.ts writes, and `stoppedEarly` saying so. End-state diffs need the end states the series kept in memory:
// a stopped series has none, so its summary reports 0 compared pairs (never "equal") unless summary.partial.json
// (written after every run since the diffs were added) has them.
//
//   npx tsx bench/finish-partial.ts bench/results/<timestamp> 'npm run bench -- …'   # writes <dir>/results.json
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ControllerRun, IdleRun, IMPLEMENTATIONS, summarize, summarizeIdle } from './side-by-side';

const [dir, command] = process.argv.slice(2);
if (!dir || !command) throw new Error('usage: finish-partial.ts <results dir> <the command that ran the series>');
const runs: ControllerRun[] = JSON.parse(fs.readFileSync(path.join(dir, 'runs.partial.json'), 'utf8'));
const idleText = fs.existsSync(path.join(dir, 'idle.partial.json'))
  ? fs.readFileSync(path.join(dir, 'idle.partial.json'), 'utf8').trim()
  : '';
const idle: IdleRun[] = idleText ? JSON.parse(`[${idleText.replace(/\}\n\{/g, '},{')}]`) : [];
const fixedCost = summarizeIdle(idle);
const partialSummary = fs.existsSync(path.join(dir, 'summary.partial.json'))
  ? JSON.parse(fs.readFileSync(path.join(dir, 'summary.partial.json'), 'utf8')).summary
  : undefined;
// Sizes where both controllers finished as many runs count (with those runs); a size with an unpaired run is left out.
const complete = [...new Set(runs.map((r) => r.foos))].filter((n) => {
  const go = runs.filter((r) => r.foos === n && r.implementation === 'go').length;
  const ours = runs.filter((r) => r.foos === n && r.implementation === 'ours').length;
  return go > 0 && go === ours;
});
const kept = runs.filter((r) => complete.includes(r.foos));
const summary = summarize(kept, fixedCost).map(
  (s) => partialSummary?.find((p: { foos: number }) => p.foos === s.foos) ?? s,
);
const stat = fs.statSync(path.join(dir, 'runs.partial.json'));
const results = {
  date: stat.mtime.toISOString(),
  machine: {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    kernel: os.release(),
  },
  loadavg: { start: kept[0]?.loadavg.start ?? [], end: kept[kept.length - 1]?.loadavg.end ?? [] },
  controller: {
    mode: 'side-by-side',
    implementations: IMPLEMENTATIONS,
    command,
    stoppedEarly: `the series was stopped before it finished (the machine's time ran out); sizes where Go and ours finished as many runs are kept with those runs (${complete.join(', ')} Foos; the runs column says how many), a run cut short is dropped`,
    steadyStateWindowSeconds: Math.max(0, ...kept.map((r) => r.steadyState.windowSeconds)),
    steadyStateRuns: 1,
    runsPerSize: Object.fromEntries(
      complete.map((n) => [n, kept.filter((r) => r.foos === n && r.implementation === 'go').length]),
    ),
    fixedCost,
    idleRuns: idle,
    summary,
    runs: kept,
  },
};
fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
console.log(`${path.join(dir, 'results.json')}: ${complete.join(', ')} Foos`);
