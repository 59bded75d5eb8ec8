/**
 * A SampleDB deleted while a failover is in flight still finishes deleting: the final snapshot reads through
 * `<db>-rw`, so the operator keeps reconciling roles until the snapshot is taken. Found by the chaos suite's
 * cleanup on the real node: a database deleted right after its primary was killed stayed `Deleting` for good
 * (the failover target was never labelled, `<db>-rw` had no endpoint, the snapshot Job waited for it forever).
 *
 * On the real apiserver with kube-controller-manager; a stand-in kubelet runs the pods (each its own IP) and
 * confirms deletions; PostgreSQL is a stand-in InstanceClient that answers by pod.
 */
import { API, sampleDbCrdManifest, startSampleDbManager, Started, StandInInstances } from './harness';
import { Credentials } from '../../../controllers/sampledb/credentials';
import { PgState } from '../../../controllers/sampledb/instances';
import { describeRealApiServer, StandInKubelet } from '../../envtest';
import { until } from '../../runtime/support';

const NS = 'default';
const T = 30_000;

/** Instances by pod name: one primary, the others standbys; `down` ones do not answer. */
class StandInPostgres extends StandInInstances {
  primary = 'del-0';
  timeline = 1;
  readonly down = new Set<string>();
  readonly promoted: string[] = [];

  async state(ip: string, _c: Credentials): Promise<PgState | undefined> {
    const pod = await this.podOf(ip);
    if (!pod || this.down.has(pod)) return undefined;
    return {
      recovery: pod !== this.primary,
      lsn: 1000n,
      replayLsn: 1000n,
      timeline: this.timeline,
      checkpointTimeline: this.timeline,
      synchronousStandbyNames: '',
    };
  }

  async promote(ip: string): Promise<void> {
    const pod = await this.podOf(ip);
    if (!pod || pod === this.primary) return;
    this.primary = pod;
    this.timeline++;
    this.promoted.push(pod);
  }
}

describeRealApiServer(
  'SampleDB deleted mid-failover',
  (plane) => {
    let started: Started | undefined;
    let kubelet: StandInKubelet | undefined;
    const released = new Set<string>();

    beforeEach(() => {
      kubelet = new StandInKubelet(plane(), {
        namespace: NS,
        confirmDeletionsAfterMs: 500,
        outcome: (pod) => {
          const job = pod.metadata.labels?.['batch.kubernetes.io/job-name'];
          if (!job) return 'Running';
          return released.has(job) ? 'Succeeded' : 'Pending';
        },
      }).start();
    });

    afterEach(async () => {
      kubelet?.stop();
      await started?.manager.stop();
      started = undefined;
    });

    test('the failover finishes (the target is labelled primary, <db>-rw leads to it) and the deletion completes after the snapshot', async () => {
      const pods = async () => (await plane().request('GET', `/api/v1/namespaces/${NS}/pods`)).body.items as any[];
      const pg = new StandInPostgres(
        async (ip) =>
          (await pods()).find((p) => p.status?.podIP === ip && !p.metadata.deletionTimestamp)?.metadata.name,
      );
      started = await startSampleDbManager(plane(), {}, { instances: pg });
      const client = started.manager.client;
      const SAMPLEDB = { apiVersion: API, kind: 'SampleDB', plural: 'sampledbs' };
      const db = async () => {
        try {
          return (await client.get(SAMPLEDB, 'del', NS)) as any;
        } catch {
          return undefined;
        }
      };
      await client.create({
        apiVersion: API,
        kind: 'SampleDB',
        metadata: { name: 'del', namespace: NS },
        // self-fencing off: its bound would raise the 1 s failover delay to 10 s (fencing.ts), which this test does not need
        spec: { version: '16.4', replicas: 3, failoverDelaySeconds: 1, anomalies: { isolationFenceSeconds: 0 } },
      });
      released.add('del-init');
      const role = async (name: string) =>
        (await pods()).find((p) => p.metadata.name === name && !p.metadata.deletionTimestamp)?.metadata.labels?.[
          'database.example.com/role'
        ];
      await until(
        'running with del-0 labelled primary',
        async () => (await db())?.status?.currentPrimary === 'del-0' && (await role('del-0')) === 'primary',
        T,
      );

      // The primary stops answering; once a target is chosen, the database is deleted.
      pg.down.add('del-0');
      const target = await until(
        'a failover target',
        async () => (await db())?.status?.targetPrimary as string | undefined,
        T,
      );
      await client.delete(SAMPLEDB, 'del', NS);
      await until(
        'deleting, final snapshot pending',
        async () =>
          (await db())?.metadata?.deletionTimestamp &&
          (await pods()).some((p) => p.metadata.labels?.['batch.kubernetes.io/job-name'] === 'del-final-snapshot'),
        T,
      );

      // While the snapshot waits, the failover completes: the target promoted and labelled, the Service has a pod to lead to.
      await until(
        `${target} promoted and labelled primary`,
        async () => pg.promoted.includes(target) && (await role(target)) === 'primary',
        T,
      );
      // the pod's label and the SampleDB's status are two writes of the failover: the status may land a moment later
      await until(`status.currentPrimary ${target}`, async () => (await db())?.status?.currentPrimary === target, T);

      released.add('del-final-snapshot');
      await until('SampleDB gone', async () => !(await db()), T);
    }, 90_000);
  },
  { shared: true, crds: [sampleDbCrdManifest()], controllerManager: true },
);
