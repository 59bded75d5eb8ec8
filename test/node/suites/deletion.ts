/**
 * Every SampleDB the suites before it left behind (the demo's `my-db` and `scratch-db` from dist/ among them) deleted
 * at once, as a user deletes them (`kubectl delete sampledbs --all --all-namespaces`): the SampleDB operator takes each
 * initialized database's final snapshot, keeps its backup volume, deletes or keeps its data volumes as
 * `spec.volumeRetention` says, and leaves no database pod running (controllers/sampledb/deletion.ts).
 *
 * It runs once the suites that read those databases are done (run.ts's PHASES). Left running, they would keep
 * being probed to the end of the run: every database pod runs an exec readiness probe every 5 s (runc, a shell,
 * pg_isready) and a primary's fencing loop asks PostgreSQL every second, which (then a psql each time) took a tenth
 * of the node's CPU in a CI rehearsal (bench/latest/ci-time/).
 */
import { spawn } from 'child_process';
import { createInterface } from 'readline';
import { assert, NodeHarness, until } from '../harness';

interface Left {
  readonly namespace: string;
  readonly name: string;
  readonly initialized: boolean;
  readonly retain: boolean;
}

const EXAMPLES = ['default/my-db', 'default/scratch-db'];
const DATABASE_PODS = 'app.kubernetes.io/component=database,app.kubernetes.io/managed-by=sampledb-operator';

export default async function deletion(h: NodeHarness): Promise<void> {
  await h.step('dist/ applied as dist/APPLY.md says', () => h.ensureDistApplied());

  await h.step(
    `every SampleDB left (the demo's ${EXAMPLES.join(', ')} among them) deleted at once: final snapshots, backup volumes kept, data volumes as volumeRetention says, no database pod left`,
    async () => {
      // Run alone, right after dist/ is applied, the examples are still starting: deleted data only counts once written.
      await until(
        `the examples ${EXAMPLES.join(', ')} initialized (a primary)`,
        () =>
          EXAMPLES.every((id) => {
            const [namespace, name] = id.split('/');
            return !!h.json('get', 'sampledb', name, '-n', namespace).status?.currentPrimary;
          }),
        300,
        2000,
      );
      const terminating = new Set<string>(
        h
          .json('get', 'namespaces')
          .items.filter((n: any) => n.metadata.deletionTimestamp)
          .map((n: any) => n.metadata.name),
      );
      const left: Left[] = h
        .json('get', 'sampledbs', '--all-namespaces')
        .items.filter((db: any) => !terminating.has(db.metadata.namespace))
        .map((db: any) => ({
          namespace: db.metadata.namespace,
          name: db.metadata.name,
          initialized: !!db.status?.currentPrimary,
          retain: db.spec.volumeRetention === 'Retain',
        }));
      const ids = left.map((d) => `${d.namespace}/${d.name}`);
      for (const example of EXAMPLES) assert(ids.includes(example), `the example ${example} is running (found ${ids})`);

      // Every Job from now on, seen by a watch (a list, then its changes): a final snapshot Job is gone with its
      // SampleDB a moment after it succeeded, too soon for polling to be sure to see it.
      const jobs = new Set<string>();
      const watch = spawn(
        'kubectl',
        ['get', 'jobs', '--all-namespaces', '--watch', '-o', 'jsonpath={.metadata.namespace}/{.metadata.name}{"\\n"}'],
        { env: h.env, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      createInterface({ input: watch.stdout }).on('line', (line) => jobs.add(line));
      let seconds: string;
      try {
        const started = Date.now();
        h.kubectl('delete', 'sampledbs', '--all', '--all-namespaces', '--wait=false');
        await until(
          'every SampleDB gone',
          () => !h.json('get', 'sampledbs', '--all-namespaces').items.length,
          300,
          2000,
        );
        seconds = ((Date.now() - started) / 1000).toFixed(0);
        await until(
          'no database pod left',
          () => !h.json('get', 'pods', '-A', '-l', DATABASE_PODS).items.length,
          120,
          2000,
        );
      } finally {
        watch.kill();
      }

      const problems: string[] = [];
      for (const d of left) {
        // a data volume being deleted waits for its pod (the StorageObjectInUseProtection finalizer): it counts as deleted
        const pvcs: string[] = h
          .json('get', 'pvc', '-n', d.namespace)
          .items.filter((p: any) => !p.metadata.deletionTimestamp)
          .map((p: any) => p.metadata.name as string);
        const data = pvcs.filter((p) => p.startsWith(`data-${d.name}-`));
        if (d.initialized && !jobs.has(`${d.namespace}/${d.name}-final-snapshot`)) {
          problems.push(`${d.name}: no final snapshot Job was created`);
        }
        if (d.initialized && !pvcs.includes(`${d.name}-backups`)) problems.push(`${d.name}: no backup volume left`);
        if (d.initialized && d.retain && !data.length) problems.push(`${d.name}: data volumes deleted (Retain)`);
        if (!d.retain && data.length) problems.push(`${d.name}: data volumes kept (${data.join(', ')})`);
      }
      assert(!problems.length, problems.join('; '));
      return `${left.length} deleted in ${seconds} s (${ids.join(', ')}); ${left.filter((d) => d.initialized).length} with a final snapshot`;
    },
  );
}
