/**
 * The throughput model's check on the figures page (bench/sharded-figures.ts), on results made up so that the answer
 * is known: a member's CPU T(M) = c + N (a + b / M) with c = 2 s, a = 1 ms and b = 4 ms per Foo, at 1,000 and 5,000
 * Foos; and a file holding two series compares each sharded run with its own unsharded run.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { shardedFigures } from '../../bench/sharded-figures';

const C = 2;
const A = 0.001;
const B = 0.004;

function run(foos: number, members: number, rssMiB: number, cpuSeconds = C + foos * (A + B / Math.max(members, 1))) {
  return {
    foos,
    members,
    namespaces: 1,
    assignment: members === 0 ? undefined : 'server',
    shardSelectorRequests: 0,
    convergeSeconds: 10,
    endStateProblems: [],
    perMember: Array.from({ length: Math.max(members, 1) }, () => ({ peakRssMiB: rssMiB, cpuSeconds })),
    maxPeakRssMiB: rssMiB,
    totalCpuSeconds: cpuSeconds * Math.max(members, 1),
    requests: { 'create deployments': foos },
    requestsPerFoo: 2,
    writesPerFoo: 2,
    loadavg: { start: [1, 1, 1], end: [1, 1, 1] },
  };
}

function writeResults(dir: string, foos: number, runs: unknown[], suffix = ''): void {
  const file = { machine: { cpus: 2, node: 'v20' }, command: 'made up', runs };
  fs.writeFileSync(path.join(dir, `sharded-results-${foos}${suffix}.json`), JSON.stringify(file));
}

/** A run of the Foos spread over 100 namespaces, the ring keyed by namespace: nothing every member pays (a = 0). */
function byNamespace(foos: number, members: number, rssMiB: number) {
  const cpu = C + (foos * B) / Math.max(members, 1);
  return { ...run(foos, members, rssMiB, cpu), namespaces: 100, ...(members > 0 ? { key: 'namespace' } : {}) };
}

describe('the throughput model checked against the members CPU (bench/sharded-figures.ts)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sharded-figures-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('fits T(M) through one and four members, predicts two, and separates c from a across two sizes', () => {
    for (const foos of [1000, 5000]) {
      writeResults(
        dir,
        foos,
        [0, 1, 2, 4].map((m) => run(foos, m, 100)),
      );
    }
    const figures = shardedFigures(dir);
    expect(figures).toContain('T(M) = 3.00 + 4.00 / M; it predicts 5.00 for two members, measured 5.00 (0 %)');
    expect(figures).toContain('T(M) = 7.00 + 20.00 / M; it predicts 17.00 for two members, measured 17.00 (0 %)');
    expect(figures).toContain('c = 2.0 s, a = 1.00 ms per Foo, b = 4.00 ms per Foo from the smaller size and 4.00');
  });

  test('a two-member run off the line is reported with its error', () => {
    writeResults(dir, 1000, [run(1000, 0, 100), run(1000, 1, 100), run(1000, 2, 100, 5.5), run(1000, 4, 100)]);
    expect(shardedFigures(dir)).toContain('it predicts 5.00 for two members, measured 5.50 (10 %)');
  });

  test('without 1, 2 and 4 members of one assignment there is no check', () => {
    writeResults(dir, 1000, [run(1000, 0, 100), run(1000, 4, 100)]);
    expect(shardedFigures(dir)).not.toContain('The throughput model against the measured CPU');
  });

  test('the namespace-keyed series are fitted apart from the UID-keyed ones, and named by their key', () => {
    for (const foos of [1000, 5000]) {
      writeResults(
        dir,
        foos,
        [0, 1, 2, 4].map((m) => run(foos, m, 100)),
      );
      writeResults(
        dir,
        foos,
        [0, 1, 2, 4].map((m) => byNamespace(foos, m, 100)),
        '-namespace',
      );
    }
    const figures = shardedFigures(dir);
    expect(figures).toContain('**1,000 Foos in 100 namespaces** (`bench/latest/sharded-results-1000-namespace.json`');
    expect(figures).toContain('| 4 (server, key namespace) |');
    expect(figures).toContain('c = 2.0 s, a = 1.00 ms per Foo, b = 4.00 ms per Foo from the smaller size and 4.00');
    expect(figures).toContain(
      '`server, key namespace`, 1,000 and 5,000 Foos together: c = 2.0 s, a = 0.00 ms per Foo, b = 4.00 ms',
    );
    // The memory model stays on the Foos of one namespace: its line runs from 1,000 to 5,000 of those.
    expect(figures).toContain('from the unsharded runs of `sharded-results-1000.json` and `sharded-results-5000.json`');
  });

  test('a later series without one, two and four members leaves the check on the last complete one', () => {
    const complete = [0, 1, 2, 4].map((m) => run(1000, m, 100));
    writeResults(dir, 1000, [...complete, run(1000, 0, 100, 99), run(1000, 4, 100, 99)]);
    expect(shardedFigures(dir)).toContain(
      'T(M) = 3.00 + 4.00 / M; it predicts 5.00 for two members, measured 5.00 (0 %)',
    );
  });

  test('each series of a file is compared with its own unsharded run', () => {
    writeResults(dir, 1000, [run(1000, 0, 200), run(1000, 4, 100), run(1000, 0, 400), run(1000, 4, 100)]);
    const figures = shardedFigures(dir);
    expect(figures).toContain('the largest member peaked at 0.50x the unsharded');
    expect(figures).toContain('the largest member peaked at 0.25x the unsharded');
  });
});
