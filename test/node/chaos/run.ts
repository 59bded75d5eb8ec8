/**
 * One chaos run against a SampleDB on the real node: a database of 3 instances, writer pods
 * inserting through `<db>-rw`, a prober connecting to every pod once a second, and a seeded schedule
 * of faults (faults.ts). After each fault the run waits until the database is back (recovered(): a
 * writable primary behind `<db>-rw`, every instance ready, exactly one instance accepting writes,
 * a linear timeline history) and records how long that took against the stated bound. At the end
 * the writers' histories are checked against the final table (history.ts), the probe rounds for
 * two writable instances or a write on a deposed primary's timeline (fencing.ts).
 *
 * Used by the short form (test/node/suites/chaos.ts) and the long form (`npm run chaos`, main.ts).
 */
import { spawnSync } from 'child_process';
import { loadavg } from 'os';
import { join } from 'path';
import { names } from '../../../controllers/sampledb/types';
import { sleep, untilBound as pollUntil } from '../harness';
import { FaultContext, injectFault, InjectedFault } from './faults';
import { fencingViolations, ProbeRound, secondPrimaryRounds } from './fencing';
import {
  Ack,
  duplicateAcks,
  FaultWindow,
  lossPerFault,
  lostWrites,
  outagePerFault,
  parseWriterLog,
  percentile,
} from './history';
import { kube, kubeAccess } from './kube';
import { DbCredentials, execUntil, presentIds, probeRound, timelineHistories, writeThrough } from './probe';
import { FaultKind, faultSchedule } from './schedule';
import { TimelineHistory } from './timeline';
import { whyNotRecovered } from './why-not-recovered';
import { SCHEMA_SQL, writerPod } from './writers';

export interface ChaosOptions {
  /** The cluster's directory (cluster.sh's DIR: kubeconfig, pid files, logs). */
  readonly clusterDir: string;
  readonly seed: number;
  /** Faults of each kind. */
  readonly perKind: number;
  readonly kinds: readonly FaultKind[];
  readonly synchronous: boolean;
  /** @default 'chaos-db' (or chaos-async) */
  readonly db?: string;
  /** The namespace the operator watches. @default 'default' */
  readonly namespace?: string;
  /** @default 3 */
  readonly replicas?: number;
  /** @default 2 */
  readonly writers?: number;
  /** Seconds a fault may take until every check passes again. @default 120 */
  readonly recoveryBoundS?: number;
  /** @default 2 */
  readonly failoverDelaySeconds?: number;
  readonly log?: (line: string) => void;
  /** No round (one fault of each kind) starts unless it is expected to end before this time (ms since epoch). */
  readonly deadline?: number;
}

/** What happened to one fault. */
export interface FaultRecord extends InjectedFault {
  readonly index: number;
  readonly kind: FaultKind;
  readonly jitter: number;
  readonly primaryBefore: string;
  readonly primaryAfter: string;
  /** Seconds from injection until status.currentPrimary named another instance (failovers only). */
  readonly failoverSeconds?: number;
  /** Seconds from injection until every check passed. */
  readonly recoverySeconds: number;
  /** The bound this fault was held to, in seconds from the injection (see ChaosReport.boundRules). */
  readonly boundSeconds: number;
  readonly withinBound: boolean;
  /** Longest interval without an acknowledged write overlapping the fault. */
  readonly outageSeconds: number;
  readonly lostRows: number;
  readonly lostSeconds: number;
  readonly lostAcknowledgedAfterInjection: number;
  /** Probe rounds in this fault's window in which two instances answered as primaries (see secondPrimaryRounds). */
  readonly secondPrimaryRounds: number;
  /** Why recovery was not reached, when it was not. */
  readonly unrecovered?: string;
}

export interface ChaosReport {
  readonly synchronous: boolean;
  readonly seed: number;
  /** Faults of each kind planned; `rounds` of them ran (fewer when the run stopped at its deadline). */
  readonly perKind: number;
  readonly rounds: number;
  readonly stoppedAtDeadline: boolean;
  readonly startedAt: string;
  readonly durationSeconds: number;
  /** 1-minute load average of the machine (2 vCPUs shared with other work) at the start and the end. */
  readonly loadAverage: { readonly start: number; readonly end: number };
  readonly recoveryBoundSeconds: number;
  /** How the bound applies per fault kind, where it does not simply count from the injection. */
  readonly boundRules: Record<string, string>;
  readonly writers: number;
  readonly acknowledged: number;
  /** Acknowledged writes per second over the run (all writers). */
  readonly acknowledgedPerSecond: number;
  readonly failedAttempts: number;
  readonly lost: number;
  readonly lostIds: number[];
  readonly duplicateAcks: number[];
  readonly probeRounds: number;
  readonly fencingViolations: { at: string; kind: string; detail: string }[];
  /** Probe rounds where two instances were out of recovery (one of them unable to commit, or it would be a violation). */
  readonly secondPrimaryRounds: { at: string; pods: string[] }[];
  readonly timeline: { chain: number[]; problems: string[] };
  readonly faults: FaultRecord[];
  readonly byKind: Record<
    string,
    {
      faults: number;
      failovers: number;
      recoveredWithinBound: number;
      recoveryP50: number;
      recoveryMax: number;
      failoverP50?: number;
      failoverMax?: number;
      outageP50: number;
      outageMax: number;
      lostRows: number;
      lostRowsMax: number;
      lostSecondsMax: number;
      measured?: Record<string, { p50: number; max: number }>;
    }
  >;
  readonly passed: boolean;
  readonly verdicts: string[];
}

export async function runChaos(o: ChaosOptions): Promise<ChaosReport> {
  const log = o.log ?? ((l: string) => process.stdout.write(`${l}\n`));
  const ns = o.namespace ?? 'default';
  const db = o.db ?? (o.synchronous ? 'chaos-db' : 'chaos-async');
  const replicas = o.replicas ?? 3;
  const writers = o.writers ?? 2;
  const bound = o.recoveryBoundS ?? 120;
  const kubeconfig = join(o.clusterDir, 'kubeconfig');
  const k = kubeAccess(kubeconfig);
  const env = { ...process.env, KUBECONFIG: kubeconfig };
  const kubectl = (args: string[], input?: string) => {
    const r = spawnSync('kubectl', args, { env, input, encoding: 'utf8', maxBuffer: 256 << 20 });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const started = Date.now();
  const loadAtStart = loadavg()[0];
  const sdbPath = `/apis/database.example.com/v2/namespaces/${ns}/sampledbs/${db}`;
  const podsPath = `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/instance=${db},app.kubernetes.io/component=database`)}`;
  const sdb = () => kube(k, 'GET', sdbPath);
  const dbPods = async () => (await kube(k, 'GET', podsPath)).items as any[];

  // 1. The database: 3 instances, failover after 2 s (no restoreFrom/backups: works with v1 and v2 of the CRD).
  kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'database.example.com/v2',
      kind: 'SampleDB',
      metadata: { name: db, namespace: ns },
      spec: {
        version: '16.4',
        replicas,
        synchronous: o.synchronous,
        failoverDelaySeconds: o.failoverDelaySeconds ?? 2,
      },
    }),
  );
  log(
    `chaos: SampleDB ${ns}/${db} (${replicas} instances, synchronous: ${o.synchronous}) applied; waiting until every instance is ready`,
  );
  const status0 = await until(300, async () => {
    const s = (await sdb()).status ?? {};
    return s.readyReplicas === replicas &&
      s.currentPrimary &&
      !s.targetPrimary &&
      (s.instances ?? []).filter((i: any) => i.ready && i.role !== 'unknown').length === replicas
      ? s
      : undefined;
  });
  const secret = await kube(k, 'GET', `/api/v1/namespaces/${ns}/secrets/${names.secret(db)}`);
  const dec = (key: string) => Buffer.from(secret.data[key], 'base64').toString();
  const cred: DbCredentials = { user: dec('username'), password: dec('password'), database: dec('database') };
  const rwIp = (await kube(k, 'GET', `/api/v1/namespaces/${ns}/services/${names.primaryService(db)}`)).spec
    .clusterIP as string;
  await execUntil(rwIp, cred, SCHEMA_SQL);
  log(
    `chaos: ready in ${((Date.now() - started) / 1000).toFixed(0)} s, primary ${status0.currentPrimary}; starting ${writers} writers`,
  );

  // 2. Writers.
  for (let w = 1; w <= writers; w++) {
    kubectl(['apply', '-f', '-'], JSON.stringify(writerPod(db, ns, w, 'postgres:16.4')));
  }
  const writerIps = await until(120, async () => {
    const items = (
      await kube(
        k,
        'GET',
        `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`app.kubernetes.io/name=chaos-writer,app.kubernetes.io/instance=${db}`)}`,
      )
    ).items as any[];
    return items.length === writers && items.every((p) => p.status?.phase === 'Running' && p.status.podIP)
      ? items.map((p) => p.status.podIP as string)
      : undefined;
  });

  // 3. The prober: every pod, directly, once a second, for the whole run.
  const rounds: ProbeRound[] = [];
  let podList: { name: string; ip?: string; uid: string }[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const t = Date.now();
      try {
        podList = (await dbPods()).map((p) => ({ name: p.metadata.name, ip: p.status?.podIP, uid: p.metadata.uid }));
      } catch {
        /* apiserver down: last list */
      }
      rounds.push(await probeRound(podList, cred, 3000));
      await sleep(Math.max(0, 1000 - (Date.now() - t)));
    }
  })();

  const history = new TimelineHistory();
  const readTimelines = async () => {
    for (const p of podList) {
      if (!p.ip) continue;
      try {
        for (const [tli, text] of await timelineHistories(p.ip, cred)) history.add(tli, text, p.name);
      } catch {
        /* not answering: next time */
      }
    }
  };

  /** Every check of "back": undefined when all pass, else what is missing. */
  const recovered = async (): Promise<{ missing?: string; primary?: string }> => {
    const s = (await sdb()).status ?? {};
    if (s.targetPrimary) return { missing: `failover/switchover to ${s.targetPrimary} in flight` };
    if (s.readyReplicas !== replicas) return { missing: `${s.readyReplicas ?? 0}/${replicas} ready replicas` };
    const inst = (s.instances ?? []) as { name: string; role: string; ready: boolean }[];
    if (inst.length !== replicas || inst.some((i) => !i.ready)) {
      return { missing: `instances not all ready: ${inst.map((i) => `${i.name}:${i.role}:${i.ready}`).join(',')}` };
    }
    if (
      inst.filter((i) => i.role === 'primary').length !== 1 ||
      inst.find((i) => i.role === 'primary')?.name !== s.currentPrimary
    ) {
      return {
        missing: `roles ${inst.map((i) => `${i.name}:${i.role}`).join(',')} (current primary ${s.currentPrimary})`,
      };
    }
    // Every standby on the primary's timeline (a standby left on an older one has not followed the promotion).
    const tl = (inst as { timeline?: number }[]).map((i) => i.timeline);
    if (new Set(tl).size !== 1 || tl[0] === undefined) {
      return {
        missing: `timelines ${inst.map((i) => `${i.name}:${(i as { timeline?: number }).timeline}`).join(',')}`,
      };
    }
    const pods = await dbPods();
    if (
      pods.length !== replicas ||
      pods.some(
        (p) =>
          p.metadata.deletionTimestamp ||
          !(p.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True'),
      )
    ) {
      return { missing: 'pods not all ready' };
    }
    const labelled = pods
      .filter((p) => p.metadata.labels?.['database.example.com/role'] === 'primary')
      .map((p) => p.metadata.name);
    if (labelled.length !== 1 || labelled[0] !== s.currentPrimary) {
      return { missing: `primary label on [${labelled.join(',')}]` };
    }
    const round = await probeRound(
      pods.map((p) => ({ name: p.metadata.name, ip: p.status?.podIP })),
      cred,
      5000,
    );
    rounds.push(round);
    const w = round.probes.filter((p) => p.acked).map((p) => p.pod);
    if (w.length !== 1 || w[0] !== s.currentPrimary) return { missing: `writable instances [${w.join(',')}]` };
    if (!(await writeThrough(rwIp, cred))) return { missing: `no write through ${names.primaryService(db)}` };
    return { primary: s.currentPrimary };
  };

  // 4. Faults.
  const schedule = faultSchedule(o.seed, o.perKind, o.kinds);
  const records: Omit<
    FaultRecord,
    'secondPrimaryRounds' | 'outageSeconds' | 'lostRows' | 'lostSeconds' | 'lostAcknowledgedAfterInjection'
  >[] = [];
  const ctx: FaultContext = { k, clusterDir: o.clusterDir, namespace: ns, db, sdb, dbPods, writerIps, log };
  const roundSize = o.kinds.length;
  let stoppedAtDeadline = false;
  /** Why the database was not back before a fault (it was after the previous one, then lost it again). */
  let notBackBefore: string | undefined;
  for (const f of schedule) {
    if (o.deadline && f.index % roundSize === 0 && f.index > 0) {
      const perRound = (Date.now() - (records[0]?.injectedAt ?? Date.now())) / (f.index / roundSize);
      if (Date.now() + perRound * 1.1 > o.deadline) {
        stoppedAtDeadline = true;
        log(
          `chaos: stopping after ${f.index / roundSize} rounds: another (${(perRound / 1000).toFixed(0)} s each) would end after the deadline`,
        );
        break;
      }
    }
    // Back after the previous fault, but it may have lost it since: the run ends with its report then.
    let lastMissing = '';
    const before = await until(bound, async () => {
      const r = await recovered().catch((err) => ({ missing: (err as Error).message, primary: undefined }));
      lastMissing = r.missing ?? '';
      return r.primary;
    }).catch(() => undefined);
    if (!before) {
      notBackBefore = `before fault ${f.index + 1} (${f.kind}) the database was not back within ${bound} s, after fault ${f.index} had recovered: ${lastMissing}`;
      log(`chaos: ${notBackBefore}; ending the run`);
      break;
    }
    await sleep(1000); // writes before the fault, so the outage has a start
    log(`chaos: fault ${f.index + 1}/${schedule.length} ${f.kind} (primary ${before})`);
    let injected: InjectedFault;
    try {
      injected = await injectFault(ctx, f.kind, f.jitter, before);
    } catch (err) {
      // The harness could not inject it (not a finding about the database): end the run with its report.
      notBackBefore = `fault ${f.index + 1} (${f.kind}) could not be injected: ${(err as Error).message.split('\n')[0]}`;
      log(`chaos: ${notBackBefore}; ending the run`);
      break;
    }
    let failoverAt: number | undefined;
    let last = '';
    let primaryAfter = before;
    const deadline = () => injected.injectedAt + ((injected.boundStartsAtS?.() ?? 0) + bound) * 1000;
    const giveUp = injected.injectedAt + (bound + 300) * 1000;
    let recoveredAt: number | undefined;
    while (Date.now() < Math.min(deadline() + 60_000, giveUp)) {
      // keep looking past the bound (reported), then give up
      try {
        const s = (await sdb()).status ?? {};
        if (!failoverAt && s.currentPrimary && s.currentPrimary !== before) failoverAt = Date.now();
        const r = (await (injected.settled?.() ?? true))
          ? await recovered()
          : { missing: 'the restarted components are not back yet' };
        if (r.primary) {
          recoveredAt = Date.now();
          primaryAfter = r.primary;
          break;
        }
        last = r.missing ?? '';
      } catch (err) {
        last = (err as Error).message;
      }
      await sleep(500);
    }
    await injected.cleanup?.();
    const rec = {
      ...injected,
      index: f.index,
      kind: f.kind,
      jitter: Number(f.jitter.toFixed(3)),
      primaryBefore: before,
      primaryAfter,
      ...(failoverAt ? { failoverSeconds: (failoverAt - injected.injectedAt) / 1000 } : {}),
      recoverySeconds: ((recoveredAt ?? Date.now()) - injected.injectedAt) / 1000,
      boundSeconds: (deadline() - injected.injectedAt) / 1000,
      withinBound: !!recoveredAt && recoveredAt <= deadline(),
      ...(recoveredAt ? {} : { unrecovered: last }),
    };
    for (const internal of ['cleanup', 'settled', 'boundStartsAtS'] as const) {
      delete (rec as { [key: string]: unknown })[internal];
    }
    records.push(rec);
    log(
      `chaos:   ${rec.withinBound ? 'recovered' : 'NOT RECOVERED'} in ${rec.recoverySeconds.toFixed(1)} s${rec.failoverSeconds ? `, failover to ${primaryAfter} in ${rec.failoverSeconds.toFixed(1)} s` : ''}${rec.unrecovered ? ` (${rec.unrecovered})` : ''}${injected.notes.length ? `; ${injected.notes.join('; ')}` : ''}`,
    );
    await readTimelines();
    if (!recoveredAt) {
      log(await whyNotRecovered(k, sdbPath, ns, db));
      break;
    }
  }
  await sleep(3000);

  // 5. The history against the final state.
  probing = false;
  await prober;
  await readTimelines();
  const acks: Ack[] = [];
  let failedAttempts = 0;
  for (let w = 1; w <= writers; w++) {
    const parsed = parseWriterLog(kubectl(['logs', '-n', ns, `${db}-writer-${w}`]), w);
    acks.push(...parsed.acks);
    failedAttempts += parsed.failures.length;
  }
  const present = await presentIds(rwIp, cred);
  const lost = lostWrites(acks, present);
  const windows: FaultWindow[] = records.map((r) => ({
    index: r.index,
    kind: r.kind,
    injectedAt: r.injectedAt,
    recoveredAt: r.injectedAt + r.recoverySeconds * 1000,
  }));
  const loss = new Map(lossPerFault(lost, windows).map((l) => [l.index, l]));
  const outage = outagePerFault(acks, windows);
  const second = secondPrimaryRounds(rounds);
  const faults: FaultRecord[] = records.map((r) => ({
    ...r,
    secondPrimaryRounds: second.filter((x) => x.at >= r.injectedAt && x.at <= r.injectedAt + r.recoverySeconds * 1000)
      .length,
    outageSeconds: outage.get(r.index) ?? 0,
    lostRows: loss.get(r.index)?.rows ?? 0,
    lostSeconds: loss.get(r.index)?.seconds ?? 0,
    lostAcknowledgedAfterInjection: loss.get(r.index)?.acknowledgedAfterInjection ?? 0,
  }));
  const violations = fencingViolations(rounds);
  const byKind: ChaosReport['byKind'] = {};
  const r2 = (x: number | undefined) => (x === undefined ? undefined : Math.round(x * 100) / 100);
  for (const kind of new Set(faults.map((f) => f.kind))) {
    const fs = faults.filter((f) => f.kind === kind);
    const fo = fs.filter((f) => f.failoverSeconds !== undefined).map((f) => f.failoverSeconds!);
    byKind[kind] = {
      faults: fs.length,
      failovers: fo.length,
      recoveredWithinBound: fs.filter((f) => f.withinBound).length,
      recoveryP50: r2(
        percentile(
          fs.map((f) => f.recoverySeconds),
          50,
        ),
      )!,
      recoveryMax: r2(
        percentile(
          fs.map((f) => f.recoverySeconds),
          100,
        ),
      )!,
      ...(fo.length ? { failoverP50: r2(percentile(fo, 50)), failoverMax: r2(percentile(fo, 100)) } : {}),
      outageP50: r2(
        percentile(
          fs.map((f) => f.outageSeconds),
          50,
        ),
      )!,
      outageMax: r2(
        percentile(
          fs.map((f) => f.outageSeconds),
          100,
        ),
      )!,
      lostRows: fs.reduce((a, f) => a + f.lostRows, 0),
      lostRowsMax: Math.max(...fs.map((f) => f.lostRows)),
      lostSecondsMax: Math.max(...fs.map((f) => f.lostSeconds)),
    };
    const keys = [...new Set(fs.flatMap((f) => Object.keys(f.measured ?? {})))];
    if (keys.length) {
      byKind[kind].measured = Object.fromEntries(
        keys.map((key) => {
          const xs = fs.map((f) => f.measured?.[key]).filter((x): x is number => x !== undefined);
          return [key, { p50: r2(percentile(xs, 50))!, max: r2(percentile(xs, 100))! }];
        }),
      );
    }
  }
  const verdicts: string[] = [];
  if (notBackBefore) verdicts.push(notBackBefore);
  if (faults.length !== schedule.length && !(stoppedAtDeadline && faults.length % roundSize === 0)) {
    verdicts.push(`only ${faults.length} of ${schedule.length} faults ran`);
  }
  for (const f of faults.filter((x) => !x.withinBound)) {
    verdicts.push(
      `fault ${f.index} (${f.kind}) not recovered within its bound (${f.boundSeconds.toFixed(1)} s): ${f.unrecovered ?? `${f.recoverySeconds} s`}`,
    );
  }
  if (o.synchronous && lost.length) {
    verdicts.push(
      `${lost.length} acknowledged writes lost with synchronous: true (first ids ${lost
        .slice(0, 10)
        .map((a) => a.id)
        .join(', ')})`,
    );
  }
  const dups = duplicateAcks(acks);
  if (dups.length) verdicts.push(`ids acknowledged twice: ${dups.slice(0, 10).join(', ')}`);
  for (const v of violations) verdicts.push(`fencing: ${v.kind} at ${new Date(v.at).toISOString()}: ${v.detail}`);
  for (const p of history.problems()) verdicts.push(`timeline: ${p}`);
  if (!acks.length) verdicts.push('no write was acknowledged at all');
  const report: ChaosReport = {
    synchronous: o.synchronous,
    seed: o.seed,
    perKind: o.perKind,
    rounds: Math.floor(faults.length / roundSize),
    stoppedAtDeadline,
    startedAt: new Date(started).toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    loadAverage: { start: loadAtStart, end: loadavg()[0] },
    recoveryBoundSeconds: bound,
    boundRules: {
      '*': `${bound} s from the injection`,
      'apiserver-restart-mid-failover': `${bound} s from the moment the restarted apiserver is reachable through the kubernetes Service (10.96.0.1:443) again, measured per fault (measured.serviceRoutedAtS): until then no operator in a pod can reach it`,
    },
    writers,
    acknowledged: acks.length,
    acknowledgedPerSecond: Math.round((acks.length / Math.max(1, (Date.now() - started) / 1000)) * 10) / 10,
    failedAttempts,
    lost: lost.length,
    lostIds: lost.map((a) => a.id).slice(0, 1000),
    duplicateAcks: dups,
    probeRounds: rounds.length,
    fencingViolations: violations.map((v) => ({ at: new Date(v.at).toISOString(), kind: v.kind, detail: v.detail })),
    secondPrimaryRounds: second.map((x) => ({ at: new Date(x.at).toISOString(), pods: x.pods })),
    timeline: { chain: history.chain(), problems: history.problems() },
    faults,
    byKind,
    passed: verdicts.length === 0,
    verdicts,
  };
  // 6. Leave nothing behind: writers and the database (its final snapshot Job included).
  kubectl([
    'delete',
    'pod',
    '-n',
    ns,
    '-l',
    `app.kubernetes.io/name=chaos-writer,app.kubernetes.io/instance=${db}`,
    '--wait=false',
  ]);
  return report;
}

/** Deletes the chaos SampleDB and waits until it is gone (final snapshot, then StatefulSet and volumes). */
export async function deleteChaosDb(
  clusterDir: string,
  db: string,
  namespace = 'default',
  timeoutS = 300,
): Promise<void> {
  const env = { ...process.env, KUBECONFIG: join(clusterDir, 'kubeconfig') };
  spawnSync(
    'kubectl',
    [
      'delete',
      'pod',
      '-n',
      namespace,
      '-l',
      `app.kubernetes.io/name=chaos-writer,app.kubernetes.io/instance=${db}`,
      '--wait=false',
    ],
    { env },
  );
  spawnSync('kubectl', ['delete', 'sampledb', db, '-n', namespace, '--wait=false'], { env });
  const k = kubeAccess(join(clusterDir, 'kubeconfig'));
  await until(timeoutS, async () => {
    try {
      await kube(k, 'GET', `/apis/database.example.com/v2/namespaces/${namespace}/sampledbs/${db}`);
      return undefined;
    } catch (err) {
      return /404/.test((err as Error).message) ? true : undefined;
    }
  });
  // The backup volume outlives a SampleDB by design (it holds the final snapshot); a test database leaves none.
  spawnSync('kubectl', ['delete', 'pvc', '-n', namespace, names.backupPvc(db), '--ignore-not-found', '--wait=false'], {
    env,
  });
}

/** The harness's poll (every 500 ms, errors retried) with the timeout first, as this module's calls read. */
function until<T>(timeoutS: number, fn: () => Promise<T | undefined | false>): Promise<T> {
  return pollUntil("the chaos run's condition", fn, timeoutS);
}
