/**
 * Runs the node end-to-end suites on ONE real single-node cluster (../shared/k8s/node), in the order below:
 *
 *   npx tsx test/node/run.ts              # every suite: cluster up (Pod Security "restricted"), suites, down
 *   npx tsx test/node/run.ts sampledb     # only the named suites, still in this order
 *   NODE_CLUSTER_DIR=/tmp/k8s-node npx tsx test/node/run.ts sampledb   # reuse a cluster that is up; leave it up
 *
 * Only one node cluster can run per machine: developers run this under `flock /tmp/k8s-node.lock`.
 * Closing lines: `<suite> e2e on the real node: N passed, M failed (S s)` per suite, then
 * `node e2e: N passed, M failed (S s)`; the exit code is 1 when any step failed. After a failure the pods' logs,
 * events and the control plane's logs are kept in `$NODE_E2E_ARTIFACTS` (default: a folder in the temp dir, printed).
 */
import { spawnSync } from 'child_process';
import { existsSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { HARNESS, NodeHarness } from './harness';

type Suite = (h: NodeHarness) => Promise<void>;

/**
 * The suites, in the order they run. Order matters: `upgrade` starts from the released (0.1.0) CRDs, so it runs
 * before anything installs the current `dist/`; `chaos` restarts the apiserver and the node agent, so it runs last.
 */
const SUITES: { readonly name: string; readonly load: () => Promise<{ default: Suite }> }[] = [
  { name: 'upgrade', load: () => import('./suites/upgrade') },
  { name: 'sampledb', load: () => import('./suites/sampledb') },
  // SampleDB's automatic actions (docs/sampledb-autopilot.md) under a write load
  { name: 'autopilot', load: () => import('./suites/autopilot') },
  { name: 'policy', load: () => import('./suites/policy') },
  { name: 'monitoring', load: () => import('./suites/monitoring') },
  { name: 'admission', load: () => import('./suites/admission') },
  // the Foo controller as 3 member pods of its sharded chart, the labelling webhook through its Service, kill -9
  { name: 'sharding', load: () => import('./suites/sharding') },
  // a new project from `npm init` to its controller in the cluster, with the packed tarball and the docs only
  { name: 'product', load: () => import('./suites/product') },
  // Restarts kube-apiserver, the kubelet and the node-agent: last.
  { name: 'chaos', load: () => import('./suites/chaos') },
];

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length) {
    throw new Error(`unknown suite(s) ${unknown.join(', ')}; have: ${SUITES.map((s) => s.name).join(', ')}`);
  }
  const suites = SUITES.filter((s) => !wanted.length || wanted.includes(s.name));
  if (!existsSync(join(HARNESS, 'cluster.sh'))) throw new Error(`the node harness is missing (${HARNESS})`);

  const started = Date.now();
  const reuse = process.env.NODE_CLUSTER_DIR;
  const dir = reuse ?? mkdtempSync(join(tmpdir(), 'node-e2e-'));
  const h = new NodeHarness(dir);
  h.sh(join(HARNESS, 'build-images.sh'), [], { env: process.env });
  const up = spawnSync(join(HARNESS, 'cluster.sh'), ['up', dir], {
    env: { ...process.env, PSS_RESTRICTED: '1' },
    encoding: 'utf8',
  });
  if (up.status !== 0) throw new Error(`cluster.sh up failed: ${up.stderr}`);
  process.stdout.write(
    `cluster ${dir} up (Pod Security restricted by default) in ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
  );
  try {
    for (const suite of suites) {
      const suiteStarted = Date.now();
      h.suite = suite.name;
      try {
        await (await suite.load()).default(h);
      } catch (err) {
        // A suite that throws outside its steps is one failed step; the suites after it still run.
        await h.step('the suite ran to its end', () => {
          throw err;
        });
      }
      process.stdout.write(
        `${suite.name} e2e on the real node: ${h.passed(suite.name)} passed, ${h.failed(suite.name)} failed (${((Date.now() - suiteStarted) / 1000).toFixed(0)} s)\n`,
      );
    }
  } finally {
    if (h.failed()) {
      try {
        h.collectArtifacts(
          process.env.NODE_E2E_ARTIFACTS ??
            join(tmpdir(), `node-e2e-artifacts-${new Date().toISOString().replace(/[:.]/g, '-')}`),
        );
      } catch (err) {
        process.stdout.write(`artifacts not collected: ${(err as Error).message}\n`);
      }
    }
    if (!reuse) {
      spawnSync(join(HARNESS, 'cluster.sh'), ['down', dir], { env: process.env, encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(
    `node e2e: ${h.passed()} passed, ${h.failed()} failed (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
  );
  if (h.failed() || !h.passed()) process.exitCode = 1;
}

// Exit when the suites are done, whatever a failed step left open (a client's socket, a load loop): CI runs this beside
// npm test and waits for it.
main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
