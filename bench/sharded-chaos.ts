// `npx tsx bench/sharded-chaos.ts [--short] [--out=bench/latest/sharded-chaos.json]`: the sharded Foo controller
// (member processes of its bundle, each with its own ServiceAccount, so the apiserver's audit log names the member of
// every write) under a steady load of Foo creates and updates on a real kube-apiserver, through the faults a ring
// meets: kill -9 of a member, a member added, a member removed (SIGTERM), a member partitioned from the apiserver
// (every request failing at a fault proxy, then healed), a roll (a new member, then an old one stopped). After the
// load every Foo must converge to the upstream end state. From the audit log: how long after the kill the dead
// member's objects were written again by another member, and per period between faults the objects written by two
// members in an interleaved order (A, B, A: two owners at once) — which must be 0. Shard label writes (the
// assignment written as a label, runtime shard-labels.ts) are counted apart: they are the ring's, not a reconcile's.
// The members run with the default assignment, labels (the bundle's contract says `sharding: true`). The bound: every
// fault's share is taken over (the first write of another member to one of its objects) within the Lease duration
// plus TAKEOVER_SLACK_SECONDS; a takeover missing or later than that fails the run (exit code 1), as a double-owned
// object or a Foo not converged does.
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { bundleFooController } from './controller-bench';
import { FooWorld } from './foo-world';
import { PlainKube, PlainMirror } from './plain-kube';
import {
  AuditedWrite,
  DepthSample,
  labelsRewritten,
  labelsWrittenBack,
  LeaseSample,
  takeoverTimeline,
} from './sharded-takeover';
import { imageRuntime } from './side-by-side';
import { ControlPlane, Identity } from '../runtime/envtest';
import { FaultProxy } from '../test/envtest/fault-proxy';

const ROOT = path.join(__dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const SHORT = argv.includes('--short');
const FOOS = '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos';
// The members' creates and patches of Foos and Deployments with their bodies (the shard label a write sets: the
// takeover timeline, sharded-takeover.ts); their other writes (Leases, status) without.
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Request
  userGroups: ["system:serviceaccounts:default"]
  verbs: ["create", "patch"]
  resources:
  - group: samplecontroller.k8s.io
    resources: ["foos"]
  - group: apps
    resources: ["deployments"]
- level: Metadata
  userGroups: ["system:serviceaccounts:default"]
  verbs: ["create", "update", "patch", "delete"]
- level: None
`;

interface Member {
  readonly name: string;
  readonly child: ChildProcess;
  readonly proxy?: FaultProxy;
  /** Its metrics endpoint (the work queue depth is scraped). */
  readonly metricsPort: number;
}
interface Fault {
  readonly kind: string;
  readonly member: string;
  readonly at: number;
  /** The 1-minute load average at the fault. */
  readonly loadavg1: number;
}

/** The Lease duration of the members (the runtime's default) and the "few seconds" a takeover may take beyond it. */
const LEASE_SECONDS = 15;
const TAKEOVER_SLACK_SECONDS = 5;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SHARD_LABEL = 'shard.cdk8s-operator.io/foo';
const VIEW_ANNOTATION = 'sharding.cdk8s-operator.io/view';

/** A free local port (for a member's metrics endpoint). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `workqueue_depth` of the Foo controller from a member's metrics (undefined: not answering). */
function scrapeDepth(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/metrics', timeout: 2000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => {
        const line = text.split('\n').find((l) => l.startsWith('workqueue_depth{') && l.includes('name="foo"'));
        resolve(line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : undefined);
      });
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
  });
}
const round = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const scale = SHORT ? 0.5 : 1;
  const out =
    option('out') ?? path.join(ROOT, SHORT ? '.tmp/sharded-chaos-short.json' : 'bench/latest/sharded-chaos.json');
  const dir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'sharded-chaos-'));
  const auditLog = path.join(dir, 'audit.log');
  fs.writeFileSync(path.join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
  const bundle = path.join(dir, 'foo.js');
  await bundleFooController(bundle);
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const plane = await ControlPlane.start({
    crds: [crd],
    startTimeoutMs: 120_000,
    apiServerFlags: [
      `--audit-policy-file=${path.join(dir, 'audit-policy.yaml')}`,
      `--audit-log-path=${auditLog}`,
      '--audit-log-maxsize=0',
    ],
  });
  const kube = new PlainKube({ url: plane.url, token: plane.admin.token, ca: plane.ca });
  const members: Member[] = [];
  const events: Array<{ at: number; what: string }> = [];
  const loadStart = os.loadavg().map(round);
  let total = 0;
  const note = (what: string) => {
    events.push({ at: Date.now(), what });
    console.log(new Date().toISOString(), what);
  };
  try {
    const image = imageRuntime();
    let nextMember = 0;
    const start = async (viaProxy = false): Promise<Member> => {
      const name = `member-${nextMember++}`;
      const identity: Identity = await plane.serviceAccount('default', name, 7200);
      await plane.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'ServiceAccount', namespace: 'default', name }],
      });
      const proxy = viaProxy ? await FaultProxy.start(plane) : undefined;
      const kubeconfig = path.join(dir, `${name}.kubeconfig`);
      const metricsPort = await freePort();
      if (proxy) proxy.writeKubeconfig(kubeconfig, identity);
      else plane.writeKubeconfig(kubeconfig, identity);
      const env: NodeJS.ProcessEnv = { ...process.env, ...image.env, KUBECONFIG: kubeconfig, LOG_LEVEL: 'error' };
      delete env.WATCH_NAMESPACE;
      delete env.NODE_OPTIONS;
      const child = spawn(
        process.execPath,
        [
          ...image.nodeFlags,
          bundle,
          `--metrics-bind-address=127.0.0.1:${metricsPort}`,
          '--health-probe-bind-address=0',
          '--sharding-ring=foo',
          '--leader-election-namespace=default',
        ],
        { env, stdio: ['ignore', 'ignore', 'ignore'] },
      );
      const m = { name: `system:serviceaccount:default:${name}`, child, proxy, metricsPort };
      members.push(m);
      note(`start ${name}${viaProxy ? ' (through a fault proxy)' : ''}`);
      return m;
    };
    const terminate = async (m: Member, signal: NodeJS.Signals) => {
      note(`${signal} ${m.name}`);
      const exited = new Promise((r) => m.child.once('exit', r));
      m.child.kill(signal);
      await exited;
    };

    // Right after a fault: every Foo the member wrote in the 10 s before it (its share then, from the audit log so
    // far) gets a new spec.replicas, so the takeover shows as the first write of another member to one of them.
    let version = 0;
    const probe = async (member: string, at: number) => {
      const names = new Set(
        reconcileWrites(readWrites(auditLog))
          .filter((w) => w.user === member && w.at < at && w.at >= at - 10_000)
          .map((w) => w.object.split('/')[1]),
      );
      version++;
      for (const name of names) {
        await kube
          .request(
            'PATCH',
            `${FOOS}/${name}`,
            { spec: { replicas: 1 + (version % 3) } },
            'application/merge-patch+json',
          )
          .catch(() => undefined);
      }
    };
    // What the takeover timelines read besides the audit log: the ring's Leases as they change, the members'
    // work queue depths every second.
    const leaseSamples: LeaseSample[] = [];
    const leases = new PlainMirror(kube, '/apis/coordination.k8s.io/v1/namespaces/default/leases', (lease) => {
      const name = lease.metadata.name as string;
      leaseSamples.push({
        at: Date.now(),
        lease: name,
        view: lease.metadata.annotations?.[VIEW_ANNOTATION],
        deleted: !leases.items.has(name),
      });
    });
    await leases.start();
    const depths: DepthSample[] = [];
    let scraping = true;
    const scraper = (async () => {
      while (scraping) {
        await Promise.all(
          members
            .filter((m) => m.child.exitCode === null && m.child.signalCode === null)
            .map(async (m) => {
              const depth = await scrapeDepth(m.metricsPort);
              if (depth !== undefined) depths.push({ at: Date.now(), user: m.name, depth });
            }),
        );
        await sleep(1000);
      }
    })();
    // Three members, one of them behind a fault proxy (for the partition).
    const [m0, m1, m2] = [await start(), await start(), await start(true)];
    const planned = Math.round(3000 * scale);
    const world = new FooWorld(kube, planned);
    await world.start();
    // The load: a Foo created every 50 ms, a random Foo's replicas changed every 100 ms, while the faults happen.
    let loading = true;
    const creates = (async () => {
      while (loading && total < planned) {
        const i = total++;
        await kube.request('POST', FOOS, {
          apiVersion: 'samplecontroller.k8s.io/v1alpha1',
          kind: 'Foo',
          metadata: { name: `foo-${i}` },
          spec: { deploymentName: `foo-${i}`, replicas: 1 },
        });
        await sleep(50 / scale);
      }
    })();
    const updates = (async () => {
      while (loading) {
        await sleep(100);
        if (total < 10) continue;
        const i = Math.floor(Math.random() * (total - 1));
        await kube
          .request(
            'PATCH',
            `${FOOS}/foo-${i}`,
            { spec: { replicas: 1 + Math.floor(Math.random() * 3) } },
            'application/merge-patch+json',
          )
          .catch(() => undefined);
      }
    })();
    const phase = Math.round(25_000 * scale);
    await sleep(phase);
    await terminate(m0, 'SIGKILL');
    const faults: Fault[] = [
      { kind: 'kill -9', member: m0.name, at: events[events.length - 1].at, loadavg1: round(os.loadavg()[0]) },
    ];
    await probe(m0.name, faults[0].at);
    await sleep(phase + 10_000);
    const m3 = await start();
    await sleep(phase);
    await terminate(m1, 'SIGTERM');
    faults.push({
      kind: 'remove (SIGTERM)',
      member: m1.name,
      at: events[events.length - 1].at,
      loadavg1: round(os.loadavg()[0]),
    });
    await probe(m1.name, faults[1].at);
    await sleep(phase);
    // Cut first, then probe (as a kill or a stop comes before its probe): the member must not see the probe's changes.
    m2.proxy!.failNext({ count: 1_000_000 }, 503);
    m2.proxy!.dropWatches();
    note(`partition ${m2.name}`);
    faults.push({
      kind: 'partition',
      member: m2.name,
      at: events[events.length - 1].at,
      loadavg1: round(os.loadavg()[0]),
    });
    await probe(m2.name, faults[2].at);
    await sleep(Math.max(phase, 25_000)); // past the 15 s Lease: its share must be taken over
    m2.proxy!.clear();
    note(`heal ${m2.name}`);
    await sleep(phase);
    // A roll: a new member first, then an old one leaves (maxSurge 1, maxUnavailable 0).
    await start();
    await sleep(phase / 2);
    await terminate(m3, 'SIGTERM');
    faults.push({
      kind: 'roll (old member stopped)',
      member: m3.name,
      at: events[events.length - 1].at,
      loadavg1: round(os.loadavg()[0]),
    });
    await probe(m3.name, faults[3].at);
    await sleep(phase / 2);
    loading = false;
    await Promise.all([creates, updates]);
    note(`load stopped: ${total} Foos`);
    // The world counts `planned`; Foos not created are absent: converge on what exists.
    const deadline = Date.now() + 600_000;
    while (world.convergedCount < total && Date.now() < deadline) await sleep(500);
    const converged = world.convergedCount >= total;
    const convergedAt = Date.now();
    note(`converged: ${world.convergedCount}/${total}`);
    await world.stop();
    scraping = false;
    await scraper;
    leases.stop();

    const audited = readWrites(auditLog);
    // The ownership audit is of the reconciles' writes; shard label writes (an assignment by the first member, a
    // handover by the old owner) are counted apart.
    const writes = reconcileWrites(audited);
    const report = analyse(writes, events, faults);
    const timelines = faults.map((f) => ({
      fault: f.kind,
      loadavg1: f.loadavg1,
      ...takeoverTimeline(f, orphansOf(writes, f), audited, leaseSamples, depths, LEASE_SECONDS * 1000),
    }));
    const labelWrites = audited.filter((w) => w.label);
    // Everything the timelines were computed from, for a closer look (not committed).
    const raw = path.join(os.tmpdir(), `sharded-chaos-audit-${process.pid}.json`);
    fs.writeFileSync(raw, JSON.stringify({ audited, leaseSamples, depths, faults, events }));
    console.log(`audited writes, Lease samples and queue depths: ${raw}`);
    const result = {
      command: `npx tsx bench/sharded-chaos.ts ${argv.join(' ')}`.trim(),
      machine: { cpus: os.cpus().length, node: process.version },
      assignment: 'labels',
      leaseDurationSeconds: LEASE_SECONDS,
      takeoverBoundSeconds: LEASE_SECONDS + TAKEOVER_SLACK_SECONDS,
      foos: total,
      convergedFoos: world.convergedCount,
      converged,
      convergeAfterLoadSeconds: round((convergedAt - events.find((e) => e.what.startsWith('load stopped'))!.at) / 1000),
      events: events.map((e) => ({ ...e, at: new Date(e.at).toISOString() })),
      ...report,
      takeoverTimelines: timelines,
      shardLabelWrites: {
        total: labelWrites.length,
        writtenBack: labelsWrittenBack(audited),
        unchanged: labelsRewritten(audited),
        byMember: Object.fromEntries(
          [...new Set(labelWrites.map((w) => w.user))].map((u) => [u, labelWrites.filter((w) => w.user === u).length]),
        ),
      },
      loadavg: { start: loadStart, end: os.loadavg().map(round) },
    };
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify({ ...result, events: undefined, periods: undefined }, null, 2));
    const late = report.takeovers.filter((t) => !t.withinBound);
    for (const t of late) {
      console.error(
        `takeover after ${t.fault} of ${t.member}: ${t.takeoverSeconds ?? 'none'} s, bound ${LEASE_SECONDS + TAKEOVER_SLACK_SECONDS} s`,
      );
    }
    if (!converged || report.doubleOwnedObjects > 0 || late.length > 0) process.exitCode = 1;
  } finally {
    for (const m of members) if (m.child.exitCode === null && m.child.signalCode === null) m.child.kill('SIGKILL');
    for (const m of members) await m.proxy?.close();
    kube.close();
    await plane.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The members' successful writes of Foos, Deployments and their Leases, by time. */
function readWrites(auditLog: string): AuditedWrite[] {
  const files = fs
    .readdirSync(path.dirname(auditLog))
    .filter((f) => f.startsWith('audit') && f.endsWith('.log'))
    .sort()
    .map((f) => path.join(path.dirname(auditLog), f));
  const writes: AuditedWrite[] = [];
  for (const file of files) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      let e;
      try {
        e = JSON.parse(line);
      } catch {
        throw new Error(`${file}: an audit event that is not JSON: ${line.slice(0, 200)}`);
      }
      const ref = e.objectRef ?? {};
      if (ref.resource !== 'foos' && ref.resource !== 'deployments' && ref.resource !== 'leases') continue;
      if (!ref.name) continue;
      const code = e.responseStatus?.code ?? 0;
      if (code >= 300) continue;
      const labelTo = e.requestObject?.metadata?.labels?.[SHARD_LABEL];
      writes.push({
        user: e.user?.username,
        object: `${ref.resource}/${ref.name}`,
        verb: e.verb,
        at: Date.parse(e.requestReceivedTimestamp),
        code,
        label: String(e.requestURI ?? '').includes('fieldManager=cdk8s-operator-sharding'),
        ...(typeof labelTo === 'string' ? { labelTo } : {}),
      });
    }
  }
  return writes.sort((a, b) => a.at - b.at);
}

/** The reconciles' writes: neither shard label writes (the ring's) nor the members' Leases. */
function reconcileWrites(audited: readonly AuditedWrite[]): AuditedWrite[] {
  return audited.filter((w) => !w.label && !w.object.startsWith('leases/'));
}

/**
 * The objects the member the fault hit owned at the fault, as far as the reconciles' writes show: those it was the
 * last to write in the 10 s before it (well after the previous ring change settled; an earlier last write may predate
 * a handover that already moved the object). The driver changes each right after the fault.
 */
function orphansOf(writes: readonly AuditedWrite[], f: Fault): Set<string> {
  const lastWriter = new Map<string, string>();
  for (const w of writes) if (w.at < f.at && w.at >= f.at - 10_000) lastWriter.set(w.object, w.user);
  return new Set([...lastWriter].filter(([, u]) => u === f.member).map(([o]) => o));
}

/**
 * Periods between consecutive faults; per period and object the members that wrote it in order. A, B (a handover)
 * is allowed; A, B, A means two members owned the object in one period: double-owned.
 */
function analyse(
  writes: readonly AuditedWrite[],
  events: ReadonlyArray<{ at: number; what: string }>,
  faults: readonly Fault[],
) {
  const bounds = [0, ...events.map((e) => e.at), Infinity];
  const periods = [];
  let doubleOwnedObjects = 0;
  const examples: string[] = [];
  for (let p = 0; p < bounds.length - 1; p++) {
    const inPeriod = writes.filter((w) => w.at >= bounds[p] && w.at < bounds[p + 1]);
    const byObject = new Map<string, string[]>();
    for (const w of inPeriod) {
      const seq = byObject.get(w.object) ?? [];
      if (seq[seq.length - 1] !== w.user) seq.push(w.user);
      byObject.set(w.object, seq);
    }
    let handedOver = 0;
    let doubled = 0;
    for (const [object, seq] of byObject) {
      if (seq.length > 1) handedOver++;
      if (new Set(seq).size < seq.length) {
        doubled++;
        if (examples.length < 10) examples.push(`${object}: ${seq.join(' → ')}`);
      }
    }
    doubleOwnedObjects += doubled;
    periods.push({
      after: p === 0 ? 'start' : events[p - 1].what,
      writes: inPeriod.length,
      objects: byObject.size,
      writtenByTwoMembersInTurn: handedOver,
      doubleOwned: doubled,
    });
  }
  // Per fault: the objects the member wrote last shortly before it (the driver changed each of them right after the
  // fault), and when another member first wrote one of them: the takeover; undefined = none was.
  const takeovers = faults.map((f) => {
    const orphaned = orphansOf(writes, f);
    const takenOver = writes.find((w) => w.at > f.at && orphaned.has(w.object) && w.user !== f.member);
    const rewrittenBySameMember = writes.some((w) => w.at > f.at && orphaned.has(w.object) && w.user === f.member);
    return {
      fault: f.kind,
      member: f.member,
      objects: orphaned.size,
      takeoverSeconds: takenOver ? round((takenOver.at - f.at) / 1000) : undefined,
      // A fault whose member owned nothing just before it has nothing to take over.
      withinBound:
        orphaned.size === 0 ||
        (takenOver !== undefined && takenOver.at - f.at <= (LEASE_SECONDS + TAKEOVER_SLACK_SECONDS) * 1000),
      memberWroteThemAgain: rewrittenBySameMember,
    };
  });
  return {
    writes: writes.length,
    writesByMember: Object.fromEntries(
      [...new Set(writes.map((w) => w.user))].map((u) => [u, writes.filter((w) => w.user === u).length]),
    ),
    takeovers,
    doubleOwnedObjects,
    doubleOwnedExamples: examples,
    periods,
  };
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
