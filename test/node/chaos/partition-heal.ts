/**
 * Fencing, the partition-heal case (issue 23, item 3; issue 34, item 5), staged explicitly: the primary cut off
 * from its standbys, the operator and the apiserver while it keeps running, healed later — does it ever accept a
 * write once another instance is promoted, and does it come back as a standby?
 *
 * Two mechanisms can stop the old primary: its own self-fencing (controllers/sampledb/fencing.ts: cut off from the
 * apiserver and every standby for `spec.anomalies.isolationFenceSeconds`, it stops PostgreSQL), and the operator's
 * pod deletion, carried out by the kubelet. With the kubelet paused only the first can act, and the staging
 * (`forceDelete`, default) also removes the old pod from the API without the kubelet once the operator started the
 * failover — as the pod garbage collector does for a deleted Node, or the `node.kubernetes.io/out-of-service` taint,
 * or an administrator's `kubectl delete --force` — so the operator promotes while the old postmaster may still run:
 * the promotion then waits for nothing but the operator's failover delay. The verdicts say which mechanism stopped
 * the old primary (`fencedBy`); with `isolationFenceSeconds: 0` (`--no-self-fence`) the staging shows what happens
 * without self-fencing (the old primary acknowledges writes after the promotion once healed: it fails).
 *
 * What a single node changes. In the `partition` fault of the chaos run only the pod's network is cut: the
 * kubelet still reaches the apiserver, so the operator's fencing (it deletes the old primary's pod and
 * promotes only once that pod is gone, replication.ts step b) is carried out at once, and the old primary
 * is already stopped when the partition heals. On several nodes the primary's node is usually partitioned
 * with it: its kubelet does not learn of the deletion, the old postmaster keeps running, and the partition
 * heals while it still runs. This staging gets that on one node by pausing the kubelet (SIGSTOP) for the
 * partition: the node then neither acts on nor reports anything, as a partitioned node. What differs: a
 * partitioned kubelet would still run the pod's probes locally (SampleDB's self-fencing is not a probe, so
 * nothing depends on it), and the staging renews the node's Lease in the kubelet's place so the node is never
 * marked NotReady (which would take every pod out of its Services: a second fault, not this one).
 * Self-fencing runs inside the container (not in a kubelet probe), so the pause does not stop it.
 *
 * Sequence: database ready → kubelet paused and the primary partitioned → the old primary fences itself
 * (self-fencing on) → the operator finds the primary unavailable; the staging force-deletes the old pod
 * (`forceDelete`; else the operator's deletion stays Terminating: no kubelet confirms it) → the operator
 * promotes a standby → 3 s later the partition is healed while the kubelet is still paused (an old
 * postmaster still running is reachable again by everyone) → 8 s later the kubelet resumes → the old
 * instance is recreated and rejoins as a standby.
 * The old primary's IP is probed from the host (a write, then pg_is_in_recovery) all along.
 *
 * Run alone: `npx tsx test/node/chaos/partition-heal.ts --cluster-dir DIR [--async] [--no-force-delete]
 * [--no-self-fence] [--out FILE]` (a cluster that is up, dist/ applied; under `flock /tmp/k8s-node.lock`).
 */
import { spawnSync } from 'child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'fs';
import { dirname, join, resolve } from 'path';
import { DEFAULT_ISOLATION_FENCE_SECONDS, fenceBoundFor } from '../../../controllers/sampledb/fencing';
import { names } from '../../../controllers/sampledb/types';
import { sleep, untilBound as pollUntil } from '../harness';
import { healPod, partitionPod } from './host';
import { kube, kubeAccess } from './kube';
import { longFormCluster } from './long-form-cluster';
import { DbCredentials, execUntil, probePod, probeRound } from './probe';
import { SCHEMA_SQL } from './writers';

export interface PartitionHealOptions {
  readonly clusterDir: string;
  readonly synchronous: boolean;
  /** @default 'chaos-heal' */
  readonly db?: string;
  /** @default 'default' */
  readonly namespace?: string;
  /**
   * Longest kubelet pause. The staging renews the node's Lease in the kubelet's place meanwhile, so the node is
   * not marked NotReady after the node-monitor grace period (40 s). @default 60
   */
  readonly kubeletPauseS?: number;
  /**
   * Once the operator started the failover, delete the old pod from the API without the kubelet (grace period 0),
   * so the promotion does not wait for the paused kubelet. @default true
   */
  readonly forceDelete?: boolean;
  /** `spec.anomalies.isolationFenceSeconds` of the staged SampleDB (0: self-fencing off). @default - the default (5) */
  readonly isolationFenceSeconds?: number;
  readonly log?: (line: string) => void;
}

/** One probe of the old primary's IP. */
export interface OldPrimaryProbe {
  /** ms since epoch. */
  readonly at: number;
  readonly acked: boolean;
  /** Answered at all (a write or pg_is_in_recovery). */
  readonly answered: boolean;
  readonly recovery?: boolean;
  readonly timeline?: number;
}

export interface PartitionHealReport {
  readonly synchronous: boolean;
  readonly forceDelete: boolean;
  /** `spec.anomalies.isolationFenceSeconds` (undefined: the default). */
  readonly isolationFenceSeconds?: number;
  /** What stopped the old primary before the promotion: itself (while the kubelet was paused), the kubelet acting on the pod deletion, or nothing. */
  readonly fencedBy: 'self' | 'kubelet' | 'none';
  /** The old primary's IP stopped answering (the first probe without an answer after its last answer as a primary). */
  readonly oldStoppedAtS?: number;
  /** The staging's force-deletion of the old pod. */
  readonly forceDeletedAtS?: number;
  /** The SampleDB's condition IsolationFencing once recovered, and whether event PrimarySelfFenced names the old primary. */
  readonly fencingCondition?: { readonly status: string; readonly reason: string; readonly message: string };
  readonly selfFencedEvent: boolean;
  readonly oldPrimary: string;
  readonly newPrimary?: string;
  /** Seconds after the partition (all times below are relative to it). */
  readonly kubeletPausedS: number;
  readonly healedAtS: number;
  readonly kubeletResumedAtS: number;
  /** The operator's pod deletion of the old primary (its fencing), seen while the kubelet was paused. */
  readonly oldPodDeletedAtS?: number;
  readonly failoverStartedAtS?: number;
  /** status.currentPrimary names another instance. */
  readonly promotedAtS?: number;
  /** The old primary's IP last answered as a primary (not in recovery). */
  readonly oldLastAnsweredAsPrimaryAtS?: number;
  /** Answers of the old primary as a primary after the heal (it ran and was reachable when the partition healed). */
  readonly oldAnsweredAsPrimaryAfterHeal: number;
  readonly oldProbes: number;
  /** Writes the old primary acknowledged: during the partition (before any promotion), and after the promotion. */
  readonly oldAckedBeforePromotion: number;
  readonly oldAckedAfterPromotion: number;
  /** The recreated old instance: its role and timeline once every check passed. */
  readonly oldRejoinedAs?: { readonly role: string; readonly timeline?: number; readonly primaryTimeline?: number };
  readonly recoveredAtS?: number;
  /** Probe rounds over every pod after the resume in which two instances acknowledged a write. */
  readonly twoWritableRounds: number;
  readonly passed: boolean;
  readonly verdicts: string[];
}

const rel = (t: number | undefined, t0: number) => (t === undefined ? undefined : Math.round((t - t0) / 100) / 10);

export async function stagePartitionHeal(o: PartitionHealOptions): Promise<PartitionHealReport> {
  const log = o.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const ns = o.namespace ?? 'default';
  const db = o.db ?? (o.synchronous ? 'chaos-heal' : 'chaos-heal-async');
  const kubeconfig = join(o.clusterDir, 'kubeconfig');
  const k = kubeAccess(kubeconfig);
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const sdbPath = `/apis/database.example.com/v2/namespaces/${ns}/sampledbs/${db}`;
  const sdb = async () => (await kube(k, 'GET', sdbPath)).status ?? {};
  const podsPath = `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/instance=${db},app.kubernetes.io/component=database`)}`;
  const dbPods = async () => (await kube(k, 'GET', podsPath)).items as any[];
  const until = <T>(s: number, what: string, fn: () => Promise<T | undefined | false>) => pollUntil(what, fn, s);

  const apply = spawnSync('kubectl', ['apply', '-f', '-'], {
    env,
    encoding: 'utf8',
    input: JSON.stringify({
      apiVersion: 'database.example.com/v2',
      kind: 'SampleDB',
      metadata: { name: db, namespace: ns },
      spec: {
        version: '16.4',
        replicas: 3,
        synchronous: o.synchronous,
        failoverDelaySeconds: 2,
        ...(o.isolationFenceSeconds === undefined
          ? {}
          : { anomalies: { isolationFenceSeconds: o.isolationFenceSeconds } }),
      },
    }),
  });
  if (apply.status !== 0) throw new Error(`kubectl apply: ${apply.stderr}`);
  const ready = await until(300, `${db} ready`, async () => {
    const s = await sdb();
    return s.readyReplicas === 3 &&
      s.currentPrimary &&
      !s.targetPrimary &&
      (s.instances ?? []).filter((i: any) => i.ready && i.role !== 'unknown').length === 3
      ? s
      : undefined;
  });
  // events of this object only: an earlier staging's SampleDB of the same name left its own (events live 1 h)
  const dbUid = (await kube(k, 'GET', sdbPath)).metadata.uid as string;
  const secret = await kube(k, 'GET', `/api/v1/namespaces/${ns}/secrets/${names.secret(db)}`);
  const dec = (key: string) => Buffer.from(secret.data[key], 'base64').toString();
  const cred: DbCredentials = { user: dec('username'), password: dec('password'), database: dec('database') };
  const rwIp = (await kube(k, 'GET', `/api/v1/namespaces/${ns}/services/${names.primaryService(db)}`)).spec
    .clusterIP as string;
  await execUntil(rwIp, cred, SCHEMA_SQL);
  const old = ready.currentPrimary as string;
  const oldPod = (await dbPods()).find((p) => p.metadata.name === old);
  const oldUid = oldPod.metadata.uid as string;
  const oldIp = oldPod.status.podIP as string;
  const kubeletPid = Number(readFileSync(join(o.clusterDir, 'kubelet.pid'), 'utf8').trim());
  log(
    `partition-heal: ${db} (synchronous: ${o.synchronous}) ready, primary ${old} (${oldIp}); pausing the kubelet (pid ${kubeletPid}) and partitioning ${old}`,
  );

  // The old primary's IP, probed from the host (which the partition keeps) for the whole staging.
  const probes: OldPrimaryProbe[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const at = Date.now();
      const p = await probePod(old, oldIp, cred, 2000);
      probes.push({
        at,
        acked: p.acked,
        answered: p.acked || p.recovery !== undefined,
        recovery: p.recovery,
        timeline: p.timeline,
      });
      await sleep(Math.max(0, 500 - (Date.now() - at)));
    }
  })();

  const pauseS = o.kubeletPauseS ?? 60;
  // The node's Lease, renewed in the paused kubelet's place (a MicroTime: 6 fractional digits).
  const nodeName = (await kube(k, 'GET', '/api/v1/nodes')).items[0].metadata.name as string;
  const renewLease = () =>
    kube(k, 'PATCH', `/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/${nodeName}`, {
      spec: { renewTime: new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z') },
    }).catch(() => undefined);
  let leaseRenewing = true;
  const leaseRenewer = (async () => {
    while (leaseRenewing) {
      await renewLease();
      await sleep(3000);
    }
  })();
  const forceDelete = o.forceDelete ?? true;
  let forceDeletedAt: number | undefined;
  let targetSeen = false;
  let t0 = 0;
  let healedAt = 0;
  let resumedAt = 0;
  let oldPodDeletedAt: number | undefined;
  let failoverStartedAt: number | undefined;
  let promotedAt: number | undefined;
  let newPrimary: string | undefined;
  const watchStatus = async () => {
    try {
      const s = await sdb();
      if (!failoverStartedAt && (s.targetPrimary || s.primaryUnavailableSince)) failoverStartedAt = Date.now();
      if (s.targetPrimary && s.targetPrimary !== old) targetSeen = true;
      if (!promotedAt && s.currentPrimary && s.currentPrimary !== old) {
        promotedAt = Date.now();
        newPrimary = s.currentPrimary;
      }
      if (!oldPodDeletedAt) {
        const p = (await dbPods()).find((x) => x.metadata.name === old);
        if (!p || p.metadata.uid !== oldUid || p.metadata.deletionTimestamp) oldPodDeletedAt = Date.now();
      }
    } catch {
      /* apiserver busy: next time */
    }
  };
  try {
    process.kill(kubeletPid, 'SIGSTOP');
    t0 = Date.now();
    partitionPod(oldUid, {
      keep: [],
      podCidr: '10.244.0.0/24',
      nodeIp: '10.244.0.1',
      apiserver: [
        { ip: '10.244.0.1', port: 16443 },
        { ip: '10.96.0.1', port: 443 },
      ],
    });
    // Partitioned until another instance is promoted and 3 s more (the old IP is then reachable again after the
    // promotion, with the kubelet still paused), at the latest until 8 s before the kubelet resumes. Without
    // forceDelete, until the operator has deleted the old pod and 5 s more (the promotion waits for the kubelet).
    const healNow = () =>
      forceDelete
        ? promotedAt !== undefined && Date.now() - promotedAt > 3000
        : oldPodDeletedAt !== undefined && Date.now() - oldPodDeletedAt > 5000;
    while (Date.now() - t0 < (pauseS - 8) * 1000 && !healNow()) {
      await watchStatus();
      if (forceDelete && !forceDeletedAt && (failoverStartedAt || targetSeen || oldPodDeletedAt)) {
        // The operator found the primary unavailable: the old pod leaves the API without its kubelet (pod GC of a
        // lost node). Its replacement (created after the primary became unavailable) is not what the operator fences.
        await kube(k, 'DELETE', `/api/v1/namespaces/${ns}/pods/${old}`, {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          gracePeriodSeconds: 0,
          preconditions: { uid: oldUid },
        }).catch(() => undefined);
        forceDeletedAt = Date.now();
        log(
          `partition-heal: force-deleted pod ${old} ${rel(forceDeletedAt, t0)} s after the partition (kubelet paused)`,
        );
      }
      await sleep(500);
    }
    healPod(oldUid);
    healedAt = Date.now();
    log(
      `partition-heal: healed ${rel(healedAt, t0)} s after the partition (old pod deleted at ${rel(oldPodDeletedAt, t0)} s, failover started at ${rel(failoverStartedAt, t0)} s, promotion ${promotedAt ? `at ${rel(promotedAt, t0)} s` : 'none yet'}); kubelet still paused`,
    );
    // 8 s more paused: the old postmaster, if it still runs, is reachable by everyone while nothing stops it.
    while (Date.now() - healedAt < 8000) {
      await watchStatus();
      await sleep(500);
    }
  } finally {
    leaseRenewing = false;
    await leaseRenewer;
    healPod(oldUid);
    try {
      process.kill(kubeletPid, 'SIGCONT');
    } catch {
      /* gone */
    }
    resumedAt = Date.now();
  }
  log(`partition-heal: kubelet resumed ${rel(resumedAt, t0)} s after the partition`);

  // Back: every check of the chaos run's recovered() that matters here, plus two-writable rounds over all pods.
  let twoWritable = 0;
  let oldRejoinedAs: PartitionHealReport['oldRejoinedAs'];
  let recoveredAt: number | undefined;
  const end = Date.now() + 180_000;
  while (Date.now() < end) {
    await watchStatus();
    try {
      const pods = await dbPods();
      const round = await probeRound(
        pods.map((p) => ({ name: p.metadata.name, ip: p.status?.podIP })),
        cred,
        3000,
      );
      if (round.probes.filter((p) => p.acked).length > 1) twoWritable++;
      const s = await sdb();
      const inst = (s.instances ?? []) as { name: string; role: string; ready: boolean; timeline?: number }[];
      const primary = inst.find((i) => i.name === s.currentPrimary);
      const again = inst.find((i) => i.name === old);
      if (again) oldRejoinedAs = { role: again.role, timeline: again.timeline, primaryTimeline: primary?.timeline };
      const writable = round.probes.filter((p) => p.acked).map((p) => p.pod);
      if (
        !s.targetPrimary &&
        s.currentPrimary !== old &&
        s.readyReplicas === 3 &&
        inst.length === 3 &&
        inst.every((i) => i.ready) &&
        again?.role === 'standby' &&
        again.timeline === primary?.timeline &&
        writable.length === 1 &&
        writable[0] === s.currentPrimary
      ) {
        recoveredAt = Date.now();
        break;
      }
    } catch {
      /* retry */
    }
    await sleep(1000);
  }
  await sleep(3000); // a few more probes of the old IP (a recreated pod may get it again: it would answer as a standby)
  probing = false;
  await prober;

  // The SampleDB reports the self-fence once the old instance runs again (condition, event): a few reconciles.
  let fencingCondition: PartitionHealReport['fencingCondition'];
  let selfFencedEvent = false;
  const reportBy = Date.now() + 30_000;
  while (Date.now() < reportBy) {
    try {
      const c = ((await sdb()).conditions ?? []).find((x: any) => x.type === 'IsolationFencing');
      if (c) fencingCondition = { status: c.status, reason: c.reason, message: c.message };
      const events = (
        await kube(
          k,
          'GET',
          `/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(`involvedObject.uid=${dbUid},reason=PrimarySelfFenced`)}`,
        )
      ).items as any[];
      selfFencedEvent = events.some((e) => String(e.message).startsWith(`${old} fenced itself`));
      if (selfFencedEvent || o.isolationFenceSeconds === 0) break;
    } catch {
      /* retry */
    }
    await sleep(2000);
  }

  const asPrimary = probes.filter((p) => p.answered && p.recovery === false);
  const verdicts: string[] = [];
  const afterPromotion = promotedAt ? probes.filter((p) => p.acked && p.at >= promotedAt!) : [];
  const lastAsPrimary = asPrimary.length ? asPrimary[asPrimary.length - 1].at : undefined;
  const afterHeal = asPrimary.filter((p) => p.at >= healedAt && p.at < resumedAt).length;
  // The old IP stopped answering: the first probe after its last answer as a primary that got no answer at all.
  const stopped = lastAsPrimary ? probes.find((p) => p.at > lastAsPrimary && !p.answered) : undefined;
  const stoppedAt = stopped?.at;
  // Before the kubelet resumed, nothing but the instance itself could stop its postmaster.
  const fencedBy: PartitionHealReport['fencedBy'] =
    stoppedAt === undefined || (promotedAt !== undefined && stoppedAt > promotedAt)
      ? 'none'
      : stoppedAt < resumedAt
        ? 'self'
        : 'kubelet';
  const selfFencing = o.isolationFenceSeconds !== 0;
  if (!promotedAt) verdicts.push('no standby was promoted');
  if (afterPromotion.length) {
    verdicts.push(
      `the old primary acknowledged ${afterPromotion.length} writes after the promotion (first ${new Date(afterPromotion[0].at).toISOString()})`,
    );
  }
  if (promotedAt && lastAsPrimary && lastAsPrimary >= promotedAt) {
    verdicts.push(
      `the old primary still answered as a primary ${((lastAsPrimary - promotedAt) / 1000).toFixed(1)} s after the promotion`,
    );
  }
  if (selfFencing && fencedBy !== 'self') {
    verdicts.push(
      `the old primary did not fence itself while cut off (it stopped ${stoppedAt === undefined ? 'never' : `at ${rel(stoppedAt, t0)} s`}, the kubelet resumed at ${rel(resumedAt, t0)} s)`,
    );
  }
  // the bound the operator's failover delay waits for, plus 1 s; the stop is taken as the start of the first probe of
  // the old IP that got no answer, so it is never later than the stop itself
  const fenceBoundS = fenceBoundFor(o.isolationFenceSeconds ?? DEFAULT_ISOLATION_FENCE_SECONDS);
  if (selfFencing && fencedBy === 'self' && stoppedAt! - t0 > (fenceBoundS + 1) * 1000) {
    verdicts.push(
      `the old primary fenced itself ${rel(stoppedAt, t0)} s after the partition (bound ${fenceBoundS} s + 1)`,
    );
  }
  if (selfFencing && fencedBy === 'self' && !selfFencedEvent) {
    verdicts.push(
      `the self-fence was not reported: no event PrimarySelfFenced naming ${old} (condition ${JSON.stringify(fencingCondition)})`,
    );
  }
  if (!recoveredAt) {
    verdicts.push(`not recovered within 180 s after the resume (old instance: ${JSON.stringify(oldRejoinedAs)})`);
  }
  if (twoWritable) verdicts.push(`${twoWritable} probe rounds with two writable instances`);
  const report: PartitionHealReport = {
    synchronous: o.synchronous,
    forceDelete,
    isolationFenceSeconds: o.isolationFenceSeconds,
    fencedBy,
    oldStoppedAtS: rel(stoppedAt, t0),
    forceDeletedAtS: rel(forceDeletedAt, t0),
    fencingCondition,
    selfFencedEvent,
    oldPrimary: old,
    newPrimary,
    kubeletPausedS: rel(resumedAt, t0)!,
    healedAtS: rel(healedAt, t0)!,
    kubeletResumedAtS: rel(resumedAt, t0)!,
    oldPodDeletedAtS: rel(oldPodDeletedAt, t0),
    failoverStartedAtS: rel(failoverStartedAt, t0),
    promotedAtS: rel(promotedAt, t0),
    oldLastAnsweredAsPrimaryAtS: rel(lastAsPrimary, t0),
    oldAnsweredAsPrimaryAfterHeal: afterHeal,
    oldProbes: probes.length,
    oldAckedBeforePromotion: probes.filter((p) => p.acked && (!promotedAt || p.at < promotedAt)).length,
    oldAckedAfterPromotion: afterPromotion.length,
    oldRejoinedAs,
    recoveredAtS: rel(recoveredAt, t0),
    twoWritableRounds: twoWritable,
    passed: verdicts.length === 0,
    verdicts: [
      `fenced by: ${fencedBy === 'self' ? `the old primary itself (stopped ${rel(stoppedAt, t0)} s after the partition, kubelet paused)` : fencedBy === 'kubelet' ? `the kubelet acting on the pod deletion (stopped ${rel(stoppedAt, t0)} s after the partition, after the resume)` : 'nothing before the promotion'}`,
      ...verdicts,
    ],
  };
  log(`partition-heal: ${JSON.stringify(report)}`);
  return report;
}

/** Deletes the staging's SampleDB (and its backup volume). */
export async function deletePartitionHealDb(clusterDir: string, db: string, namespace = 'default'): Promise<void> {
  const env = { ...process.env, KUBECONFIG: join(clusterDir, 'kubeconfig') };
  spawnSync('kubectl', ['delete', 'sampledb', db, '-n', namespace, '--wait=false'], { env });
  const k = kubeAccess(join(clusterDir, 'kubeconfig'));
  await pollUntil(
    `${db} deleted`,
    async () => {
      try {
        await kube(k, 'GET', `/apis/database.example.com/v2/namespaces/${namespace}/sampledbs/${db}`);
        return undefined;
      } catch (err) {
        return /404/.test((err as Error).message) ? true : undefined;
      }
    },
    300,
  );
  spawnSync('kubectl', ['delete', 'pvc', '-n', namespace, names.backupPvc(db), '--ignore-not-found', '--wait=false'], {
    env,
  });
}

/**
 * `npx tsx test/node/chaos/partition-heal.ts [--cluster-dir DIR] [--runs N] [--append] [--async] [--no-force-delete]
 * [--no-self-fence] [--out FILE]`: without a cluster folder a fresh cluster is brought up as test/node/run.ts does
 * (dist/ applied as APPLY.md says) and taken down after. Every run is written to FILE (default
 * bench/latest/chaos-partition-heal[-variant].json) as `{ command, runs: [...] }`; `--append` keeps the runs already
 * there. Under `flock /tmp/k8s-node.lock`.
 */
async function main(): Promise<void> {
  const arg = (n: string) => {
    const i = process.argv.indexOf(`--${n}`);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const flag = (n: string) => process.argv.includes(`--${n}`);
  const synchronous = !flag('async');
  const forceDelete = !flag('no-force-delete');
  const isolationFenceSeconds = flag('no-self-fence') ? 0 : undefined;
  const runs = Number(arg('runs') ?? '1');
  const db = synchronous ? 'chaos-heal' : 'chaos-heal-async';
  const flags = ['async', 'no-force-delete', 'no-self-fence'].filter(flag).map((f) => ` --${f}`);
  const variant = flags.join('').replace(/ --/g, '-');
  const file = resolve(arg('out') ?? join(__dirname, '../../../bench/latest', `chaos-partition-heal${variant}.json`));
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  const { dir, down } = await longFormCluster('partition-heal-', arg('cluster-dir'));
  try {
    for (let n = 0; n < runs; n++) {
      const startedAt = new Date().toISOString();
      const loadAtStart = load();
      try {
        const report = await stagePartitionHeal({
          clusterDir: dir,
          synchronous,
          db,
          forceDelete,
          isolationFenceSeconds,
        });
        const previous = flag('append') && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')).runs ?? []) : [];
        const all = n === 0 ? previous : JSON.parse(readFileSync(file, 'utf8')).runs;
        mkdirSync(dirname(file), { recursive: true });
        const command = `npx tsx test/node/chaos/partition-heal.ts${flags.join('')}`;
        const run = { startedAt, loadAverage: { atStart: loadAtStart, atEnd: load() }, ...report };
        writeFileSync(file, `${JSON.stringify({ command, runs: [...all, run] }, null, 2)}\n`);
        process.stdout.write(
          `partition-heal (synchronous: ${synchronous}): ${report.passed ? 'PASSED' : 'FAILED'} ${report.verdicts.join('; ')} → ${file}\n`,
        );
        if (!report.passed) process.exitCode = 1;
      } finally {
        await deletePartitionHealDb(dir, db).catch((err) =>
          process.stdout.write(`cleanup: ${(err as Error).message}\n`),
        );
      }
    }
  } finally {
    down();
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 1;
  });
}
