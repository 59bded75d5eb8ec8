/**
 * The Foo reference controller sharded on the real single-node cluster (issue 33, "Use it"): the `Operator` as its
 * chart emits it with `sharding: { replicas: 3, key: 'namespace' }` (the labels assignment, the labelling webhook
 * on), built from the demo's own constructs (the Foo CRD, `FOO_SHARDED_CONTRACT`, the demo's controller image, whose
 * binary declares that contract when started with `--sharding-ring`), beside the demo of `dist/`:
 * - 3 member pods Ready in a namespace that enforces Pod Security "restricted"; their 3 Leases form the ring (one
 *   view, acknowledged by every member); the PodDisruptionBudget lets one member down;
 * - Foos created with kubectl in 6 namespaces (2 per member) come back from the create already labelled with their
 *   member: the apiserver called the MutatingWebhookConfiguration → the webhook Service → a member pod, through the
 *   certificates the members issued and injected themselves; no label patch of the assigner on them;
 * - every Foo converges to sample-controller's end state, and is reconciled by one member only: its owner by
 *   rendezvous hashing of its namespace (the `Synced` Events' `reportingInstance`, each member's
 *   `controller_runtime_shard_owned_objects`); Deployments that no Foo owns carry no label of the ring;
 * - kill -9 of a member's process (from the host, found through its pod's cgroup): every Foo's spec changed right
 *   after the kill converges; the dead member's Foos are taken over within its Lease's duration plus
 *   TAKEOVER_SLACK_S after the kill (measured and printed); after the kill every Foo is reconciled by its owner in the
 *   new ring only; the killed container restarts in its pod and rejoins the ring.
 * The demo's own Foo controller would reconcile every Foo beside the ring: it is scaled to 0 for the suite and back to
 * its replicas at the end (its Deployment's spec as before, Available, holding its leader Lease). Everything the suite
 * created is deleted, and the ring's label is removed from the demo's objects the ring labelled (its example Foo).
 */
import { createHash } from 'crypto';
import { App, Chart } from 'cdk8s';
import { fooCrd } from '../../../apps/foo/foo-crd';
import { FOO_SHARDED_CONTRACT } from '../../../controllers/foo/contract';
import { controllerImage } from '../../../controllers/images';
import { Operator } from '../../../lib';
import { shardLabel } from '../../../lib/apimachinery/shard-label';
import { rendezvousOwner, SHARD_RING_LABEL, SHARD_VIEW_ANNOTATION } from '../../../runtime/sharding';
import { comm, containerInit } from '../chaos/host';
import { HOST_SLACK_SCALE, NodeHarness, assert, sleep, until } from '../harness';

const NAME = 'foo-sharded';
const NS = `${NAME}-system`;
const LABEL = shardLabel(NAME);
const MEMBERS = 3;
const DEMO = { namespace: 'foo-controller-system', name: 'foo-controller', lease: 'foo-controller-leader' };
/** The suite's namespaces: 2 per member, picked by the ring's own hashing once the members are known. */
const NAMESPACES_PER_MEMBER = 2;
const FOOS_PER_NAMESPACE = 2;
/**
 * The "few seconds" beyond the dead member's Lease duration its share may take: 5 s, the bound of the quiet chaos run
 * (`npm run chaos:sharded`), times TEST_TIMEOUT_SCALE, as the jest suites scale theirs (hostSlackMs): CI runs this
 * suite beside npm test and SampleDB's failovers, where the kubectl patches and the reconciles take longer.
 */
const TAKEOVER_SLACK_S = 5 * HOST_SLACK_SCALE;
const FOO_RESOURCE = 'samplecontroller.k8s.io/v1alpha1/Foo';
/** The MutatingWebhookConfiguration's webhook that labels Foos at create (lib/operator/operator-webhooks.ts). */
const LABEL_WEBHOOK = 'label-shard.foos.samplecontroller.k8s.io';

interface Member {
  readonly pod: string;
  readonly podUid: string;
  /** The member's name in the ring: its Lease's name. */
  readonly member: string;
  /** Its identity (the Lease's holderIdentity, the Events' reportingInstance): `<pod>_<uuid>`. */
  readonly identity: string;
}

interface FooState {
  readonly ns: string;
  readonly name: string;
  readonly label?: string;
  readonly converged: boolean;
  readonly problem: string;
  readonly deploymentReplicas?: number;
}

/** The view hash a member acknowledges in its Lease (runtime/sharding.ts): the sorted member names, hashed. */
function viewHash(members: readonly string[]): string {
  return createHash('sha256')
    .update([...members].sort().join(','))
    .digest('hex')
    .slice(0, 16);
}

export default async function sharding(h: NodeHarness): Promise<void> {
  const step = h.step.bind(h);
  const namespaces: string[] = [];
  let members: Member[] = [];
  let demoSpec: any;
  let demoScaledDown = false;
  let applied: any[] = [];

  const leases = () =>
    h.json('get', 'leases', '-n', NS, '-l', `${SHARD_RING_LABEL}=${NAME}`).items as Array<{
      metadata: { name: string; annotations?: Record<string, string> };
      spec: { holderIdentity?: string; renewTime?: string; leaseDurationSeconds?: number };
    }>;
  const memberPods = () =>
    (h.json('get', 'pods', '-n', NS, '-l', `app.kubernetes.io/instance=${NAME}`).items as any[]).filter(
      (p) => !p.metadata.deletionTimestamp,
    );
  /** The ring as its Leases say: members whose Lease names a running pod and was renewed within its duration. */
  const liveMembers = (): Member[] => {
    const pods = new Map(memberPods().map((p) => [p.metadata.name as string, p]));
    return leases()
      .filter((l) => {
        const renewed = Date.parse(l.spec.renewTime ?? '');
        return Date.now() - renewed < (l.spec.leaseDurationSeconds ?? 15) * 1000;
      })
      .flatMap((l) => {
        const identity = l.spec.holderIdentity ?? '';
        const pod = pods.get(identity.split('_')[0]);
        return pod ? [{ pod: pod.metadata.name, podUid: pod.metadata.uid, member: l.metadata.name, identity }] : [];
      })
      .sort((a, b) => a.member.localeCompare(b.member));
  };
  /** One member's metrics, through the apiserver's pod proxy. */
  const metrics = (pod: string) => h.kubectl('get', '--raw', `/api/v1/namespaces/${NS}/pods/${pod}:8080/proxy/metrics`);
  const metric = (text: string, name: string, labels: Record<string, string>): number => {
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
    return line ? Number(line.split(' ').pop()) : 0;
  };
  /** The apiserver's count of calls to the labelling webhook that failed and were ignored (failurePolicy: Ignore). */
  const failOpenCount = () =>
    metric(h.kubectl('get', '--raw', '/metrics'), 'apiserver_admission_webhook_fail_open_count', {
      name: LABEL_WEBHOOK,
      type: 'admit',
    });
  const ownerOf = (ns: string, ring: readonly Member[]) =>
    rendezvousOwner(
      ns,
      ring.map((m) => m.member),
    );
  /** Objects of a kind in the suite's namespaces (one request for all of them). */
  const inSuite = (kind: string) =>
    (h.json('get', kind, '-A').items as any[]).filter((o) => namespaces.includes(o.metadata.namespace));
  const suiteFoos = () => inSuite('foos');
  /** Each Foo against sample-controller's end state: its Deployment, with its replicas, reported back in its status. */
  const fooStates = (): FooState[] => {
    // Foos and Deployments in one request (one kubectl process: the kill -9 step polls this every 250 ms)
    const both = inSuite('foos,deployments');
    const deployments = new Map(
      both.filter((o) => o.kind === 'Deployment').map((d) => [`${d.metadata.namespace}/${d.metadata.name}`, d]),
    );
    return both
      .filter((o) => o.kind === 'Foo')
      .map((foo) => {
        const ns = foo.metadata.namespace;
        const d = deployments.get(`${ns}/${foo.spec.deploymentName}`);
        const owner = d?.metadata.ownerReferences?.find((r: any) => r.controller);
        const problem = !d
          ? 'no Deployment'
          : owner?.uid !== foo.metadata.uid
            ? `Deployment's controller ${owner?.kind}/${owner?.name}`
            : d.spec.replicas !== foo.spec.replicas
              ? `Deployment replicas ${d.spec.replicas}, Foo ${foo.spec.replicas}`
              : d.status?.observedGeneration !== d.metadata.generation
                ? 'Deployment not observed yet'
                : foo.status?.availableReplicas !== (d.status?.availableReplicas ?? 0)
                  ? `status.availableReplicas ${foo.status?.availableReplicas}, Deployment ${d.status?.availableReplicas ?? 0}`
                  : d.metadata.labels?.[LABEL] !== foo.metadata.labels?.[LABEL]
                    ? `Deployment labelled ${d.metadata.labels?.[LABEL]}, Foo ${foo.metadata.labels?.[LABEL]}`
                    : '';
        return {
          ns,
          name: foo.metadata.name,
          label: foo.metadata.labels?.[LABEL],
          converged: problem === '',
          problem,
          deploymentReplicas: d?.spec.replicas,
        };
      });
  };
  /** The `Synced` Events of the suite's Foos: who reported each (reportingInstance), when (first and last time). */
  const syncedEvents = () =>
    inSuite('events.events.k8s.io')
      .filter((e) => e.reason === 'Synced' && e.regarding?.kind === 'Foo')
      .map((e) => ({
        foo: `${e.metadata.namespace}/${e.regarding.name}`,
        ns: e.metadata.namespace as string,
        instance: e.reportingInstance as string,
        first: Date.parse(e.eventTime),
        last: Date.parse(e.series?.lastObservedTime ?? e.eventTime),
      }));

  await step('dist/ applied as dist/APPLY.md says', () => h.ensureDistApplied());

  try {
    await step("the demo's Foo controller stopped for the suite (scaled to 0; restored at the end)", async () => {
      const demo = h.json('get', 'deployment', DEMO.name, '-n', DEMO.namespace);
      demoSpec = demo.spec;
      h.kubectl('scale', 'deployment', DEMO.name, '-n', DEMO.namespace, '--replicas=0');
      demoScaledDown = true;
      await until(
        "the demo's Foo controller pods gone",
        () => (h.json('get', 'pods', '-n', DEMO.namespace).items as any[]).length === 0,
        60,
        500,
      );
      return `${DEMO.namespace}/${DEMO.name}: ${demoSpec.replicas} → 0 replicas`;
    });

    await step(
      `the sharded Foo operator applied as its chart emits it (sharding: { replicas: ${MEMBERS}, key: 'namespace' })`,
      () => {
        // an app that is never synthesised writes nothing (Testing.app() would leave a folder in the temp dir)
        const chart = new Chart(new App(), NAME);
        new Operator(chart, NAME, {
          crds: [fooCrd(chart)],
          image: controllerImage('foo'),
          contract: FOO_SHARDED_CONTRACT,
          sharding: { replicas: MEMBERS, key: 'namespace' },
        });
        // The CRD is dist/'s (the same construct): installed already, and left to the demo.
        applied = chart.toJson().filter((o: any) => o.kind !== 'CustomResourceDefinition');
        const kinds = applied.map((o: any) => o.kind);
        for (const kind of ['PodDisruptionBudget', 'MutatingWebhookConfiguration', 'Service', 'Secret', 'Deployment']) {
          assert(kinds.includes(kind), `the chart emits a ${kind} (has ${kinds.join(', ')})`);
        }
        const deployment = applied.find((o: any) => o.kind === 'Deployment');
        const args: string[] = deployment.spec.template.spec.containers[0].args;
        for (const a of [`--sharding-ring=${NAME}`, '--sharding-key=namespace', '--sharding-label-webhook']) {
          assert(args.includes(a), `the members run with ${a} (args ${args.join(' ')})`);
        }
        const out = h.apply(...applied);
        assert(!/warning/i.test(out), `apply printed warnings: ${out}`);
        return `${applied.length} objects (${[...new Set(kinds)].join(', ')}); members run ${args.filter((a) => a.startsWith('--sharding')).join(' ')}`;
      },
    );

    await step(
      `${MEMBERS} member pods Ready in a namespace enforcing Pod Security "restricted"; a PodDisruptionBudget allows one down`,
      async () => {
        const labels = h.json('get', 'namespace', NS).metadata.labels ?? {};
        assert(
          labels['pod-security.kubernetes.io/enforce'] === 'restricted',
          `namespace ${NS} enforces ${labels['pod-security.kubernetes.io/enforce']}`,
        );
        await until(
          `${MEMBERS} members Ready`,
          () => {
            const pods = memberPods();
            return (
              pods.length === MEMBERS &&
              pods.every((p) => p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'))
            );
          },
          150,
          1000,
        );
        const pdb = await until(
          'the PodDisruptionBudget counts the members',
          () => {
            const p = h.json('get', 'pdb', NAME, '-n', NS);
            return p.status?.expectedPods === MEMBERS && p.status?.currentHealthy === MEMBERS ? p : undefined;
          },
          30,
          1000,
        );
        assert(
          pdb.spec.maxUnavailable === 1 && pdb.status.disruptionsAllowed === 1,
          `PDB maxUnavailable ${pdb.spec.maxUnavailable}, disruptionsAllowed ${pdb.status.disruptionsAllowed}`,
        );
        return `pods ${memberPods()
          .map((p) => p.metadata.name)
          .join(', ')}; PDB ${pdb.status.currentHealthy} healthy, ${pdb.status.disruptionsAllowed} disruption allowed`;
      },
    );

    await step(`their ${MEMBERS} Leases form the ring: one view, acknowledged by every member`, async () => {
      members = await until(
        `${MEMBERS} live Leases, each of a member pod, all acknowledging the view of the ${MEMBERS}`,
        () => {
          const live = liveMembers();
          if (live.length !== MEMBERS) return undefined;
          const view = viewHash(live.map((m) => m.member));
          const acks = leases()
            .filter((l) => live.some((m) => m.member === l.metadata.name))
            .map((l) => l.metadata.annotations?.[SHARD_VIEW_ANNOTATION]);
          return acks.every((a) => a === view) ? live : undefined;
        },
        60,
        1000,
      );
      // Each member acts on that view: the ring's size in its own metrics.
      for (const m of members) {
        const n = await until(
          `${m.pod} acting on ${MEMBERS} members`,
          () => metric(metrics(m.pod), 'controller_runtime_shard_members', { ring: NAME }) === MEMBERS,
          30,
          1000,
        );
        assert(n, `${m.pod} reports ${MEMBERS} members`);
      }
      return members.map((m) => `${m.member} (${m.pod})`).join(', ');
    });

    await step(
      `the labelling webhook answers through its Service: ${NAMESPACES_PER_MEMBER} namespaces per member, a dry-run create comes back labelled`,
      async () => {
        // Namespaces picked by the ring's own hashing (rendezvous over the member names), so every member has a share.
        const perMember = new Map(members.map((m) => [m.member, [] as string[]]));
        for (let i = 0; [...perMember.values()].some((l) => l.length < NAMESPACES_PER_MEMBER); i++) {
          assert(i < 500, 'namespaces for every member found');
          const ns = `e2e-shard-${i}`;
          const list = perMember.get(ownerOf(ns, members)!)!;
          if (list.length < NAMESPACES_PER_MEMBER) list.push(ns);
        }
        for (const list of perMember.values()) namespaces.push(...list);
        namespaces.sort();
        for (const ns of namespaces) h.kubectl('create', 'namespace', ns);
        const started = Date.now();
        // The members issue the webhook's certificate and inject its CA: until then the apiserver's call fails and
        // (failurePolicy: Ignore) the create goes on unlabelled.
        const probe = await until(
          'a dry-run create labelled by the webhook',
          () => {
            const created = JSON.parse(
              h.sh('kubectl', ['create', '--dry-run=server', '-o', 'json', '-f', '-'], {
                input: JSON.stringify(fooObject(namespaces[0], 'dry-run', 1)),
              }),
            );
            return created.metadata.labels?.[LABEL] ? created : undefined;
          },
          60,
          1000,
        );
        const want = ownerOf(namespaces[0], members);
        assert(probe.metadata.labels[LABEL] === want, `dry run labelled ${probe.metadata.labels[LABEL]}, want ${want}`);
        return `${namespaces.join(', ')}; labelled ${((Date.now() - started) / 1000).toFixed(1)} s after the namespaces`;
      },
    );

    const fooCount = () => namespaces.length * FOOS_PER_NAMESPACE;
    /** The Foos whose create went on unlabelled because the apiserver's call to the webhook failed (open). */
    let failedOpen: string[] = [];
    await step(
      `${NAMESPACES_PER_MEMBER * MEMBERS * FOOS_PER_NAMESPACE} Foos created with kubectl come back from the create labelled with their member (MutatingWebhookConfiguration → Service → a member pod)`,
      () => {
        // The webhook is failurePolicy: Ignore with a 2 s timeout: on a loaded host a call can time out and the create
        // goes on unlabelled (the assigner's job, next step). The apiserver counts each such call, so a missing label
        // is allowed only where it says a call failed open, and never more than a quarter of the creates.
        const failOpenBefore = failOpenCount();
        const unlabelled: string[] = [];
        const wrong: string[] = [];
        for (const ns of namespaces) {
          for (let i = 0; i < FOOS_PER_NAMESPACE; i++) {
            const created = JSON.parse(
              h.sh('kubectl', ['create', '-o', 'json', '-f', '-'], {
                input: JSON.stringify(fooObject(ns, `foo-${i}`, 1)),
              }),
            );
            const label = created.metadata.labels?.[LABEL];
            if (label === undefined) unlabelled.push(`${ns}/foo-${i}`);
            else if (label !== ownerOf(ns, members)) wrong.push(`${ns}/foo-${i}: ${label}`);
          }
        }
        const calledFailedOpen = failOpenCount() - failOpenBefore;
        assert(wrong.length === 0, `creates labelled with another member than their owner: ${wrong.join(', ')}`);
        assert(
          unlabelled.length <= calledFailedOpen && unlabelled.length <= fooCount() / 4,
          `creates not labelled: ${unlabelled.join(', ') || 'none'}; webhook calls the apiserver counted as failed open: ${calledFailedOpen}`,
        );
        failedOpen = unlabelled;
        const admitted = members.map((m) =>
          metric(metrics(m.pod), 'controller_runtime_shard_label_writes_total', { ring: NAME, reason: 'admission' }),
        );
        const total = admitted.reduce((a, b) => a + b, 0);
        const labelled = fooCount() - unlabelled.length;
        assert(total >= labelled, `the members labelled ${total} creates, fewer than ${labelled}`);
        return `${labelled} of ${fooCount()} labelled in the create response (${unlabelled.length} failed open: ${unlabelled.join(', ') || 'none'}); labels written at admission per member: ${admitted.join(', ')} (dry runs included)`;
      },
    );

    await step(
      "every Foo converges to sample-controller's end state; the assigner patched only those the webhook did not label",
      async () => {
        const states = await until(
          'every Foo converged',
          () => {
            const s = fooStates();
            return s.length === fooCount() && s.every((f) => f.converged) ? s : undefined;
          },
          90,
          1000,
        ).catch((err) => {
          throw new Error(
            `${(err as Error).message}: ${fooStates()
              .filter((f) => !f.converged)
              .map((f) => `${f.ns}/${f.name} ${f.problem}`)
              .join('; ')}`,
          );
        });
        const patched = suiteFoos()
          .filter((f) => (f.metadata.managedFields ?? []).some((m: any) => m.manager === 'cdk8s-operator-sharding'))
          .map((f) => `${f.metadata.namespace}/${f.metadata.name}`)
          .sort();
        assert(
          patched.join(', ') === [...failedOpen].sort().join(', '),
          `Foos patched by the assigner: ${patched.join(', ') || 'none'}; created unlabelled (webhook failed open): ${failedOpen.join(', ') || 'none'}`,
        );
        return `${states.length} Foos (${patched.length} labelled by the assigner after the webhook failed open): Deployment with the Foo's replicas, owned by it, in its member's share; status.availableReplicas reported (0: the nginx image is not on the node)`;
      },
    );

    await step(
      "each Foo reconciled by one member, its owner: the Synced Events' reportingInstance and each member's owned-object gauge",
      async () => {
        const byIdentity = new Map(members.map((m) => [m.identity, m]));
        const events = await until(
          'a Synced Event of every Foo',
          () => {
            const e = syncedEvents();
            return new Set(e.map((x) => x.foo)).size === fooCount() ? e : undefined;
          },
          30,
          1000,
        );
        const wrong = events.filter((e) => byIdentity.get(e.instance)?.member !== ownerOf(e.ns, members));
        assert(
          wrong.length === 0,
          `Synced by another member than the owner: ${wrong.map((e) => `${e.foo} by ${e.instance}`).join(', ')}`,
        );
        // The gauge is each member's cache of its share: the Foos (the suite's and the demo's) labelled with its name.
        const gauges = members.map((m) => {
          const owned = metric(metrics(m.pod), 'controller_runtime_shard_owned_objects', {
            ring: NAME,
            resource: FOO_RESOURCE,
          });
          const labelled = (h.json('get', 'foos', '-A', '-l', `${LABEL}=${m.member}`).items as any[]).length;
          assert(owned === labelled, `${m.pod} caches ${owned} Foos, ${labelled} carry its label`);
          return `${m.pod} ${owned}`;
        });
        return `${events.length} Synced Events, each by the Foo's owner; Foos cached per member: ${gauges.join(', ')}`;
      },
    );

    await step(
      "objects no Foo owns are not the ring's: Deployments without a Foo owner carry no label of the ring",
      () => {
        const labelled = h.json('get', 'deployments', '-A', '-l', LABEL).items as any[];
        const foreign = labelled.filter(
          (d) => !(d.metadata.ownerReferences ?? []).some((r: any) => r.controller && r.kind === 'Foo'),
        );
        assert(
          foreign.length === 0,
          `the ring labelled Deployments no Foo owns: ${foreign.map((d) => `${d.metadata.namespace}/${d.metadata.name}`).join(', ')}`,
        );
        return `${labelled.length} Deployments labelled, all owned by a Foo`;
      },
    );

    let killedAt = 0;
    let victim: Member | undefined;
    let ringAfter: Member[] = [];
    await step(
      `kill -9 of a member's process: every Foo converges to a spec changed after the kill; the dead member's share taken over within its Lease + ${TAKEOVER_SLACK_S} s`,
      async () => {
        const share = (m: Member) => namespaces.filter((ns) => ownerOf(ns, members) === m.member);
        victim = members[0];
        const pod = h.json('get', 'pod', victim.pod, '-n', NS);
        const pid = containerInit(pod.metadata.uid, pod.status.containerStatuses[0].containerID);
        assert(
          pid && comm(pid) === 'node',
          `the member's process in ${victim.pod}'s cgroup (pid ${pid}, ${pid && comm(pid)})`,
        );
        const lease = leases().find((l) => l.metadata.name === victim!.member)!;
        const durationS = lease.spec.leaseDurationSeconds ?? 15;
        killedAt = Date.now();
        process.kill(pid, 'SIGKILL');
        // The change every Foo must converge to: made after the kill.
        for (const f of suiteFoos()) {
          h.kubectl(
            'patch',
            'foo',
            f.metadata.name,
            '-n',
            f.metadata.namespace,
            '--type=merge',
            '-p',
            JSON.stringify({ spec: { replicas: 2 } }),
          );
        }
        const patchedS = (Date.now() - killedAt) / 1000;
        const takenAt = new Map<string, number>();
        const deadFoos = new Set(
          suiteFoos()
            .filter((f) => share(victim!).includes(f.metadata.namespace))
            .map((f) => `${f.metadata.namespace}/${f.metadata.name}`),
        );
        const boundS = durationS + TAKEOVER_SLACK_S;
        const end = Date.now() + (boundS + 60) * 1000;
        let states: FooState[] = [];
        for (;;) {
          states = fooStates();
          const now = Date.now();
          for (const s of states) {
            if (s.deploymentReplicas === 2 && !takenAt.has(`${s.ns}/${s.name}`)) takenAt.set(`${s.ns}/${s.name}`, now);
          }
          if (states.every((s) => s.converged && s.deploymentReplicas === 2)) break;
          if (now > end) {
            throw new Error(
              `not converged ${((now - killedAt) / 1000).toFixed(0)} s after the kill: ${states
                .filter((s) => !s.converged || s.deploymentReplicas !== 2)
                .map((s) => `${s.ns}/${s.name} ${s.problem || `replicas ${s.deploymentReplicas}`}`)
                .join('; ')}`,
            );
          }
          await sleep(250);
        }
        const seconds = (keys: Iterable<string>) => [...keys].map((k) => (takenAt.get(k)! - killedAt) / 1000);
        const dead = seconds(deadFoos);
        const others = seconds([...takenAt.keys()].filter((k) => !deadFoos.has(k)));
        const takeover = Math.max(...dead);
        process.stdout.write(
          `  sharding: kill -9 of ${victim.pod} (${victim.member}, Lease ${durationS} s): its ${deadFoos.size} Foos reconciled ` +
            `${Math.min(...dead).toFixed(1)} to ${takeover.toFixed(1)} s after the kill, the other ${others.length} ` +
            `${Math.min(...others).toFixed(1)} to ${Math.max(...others).toFixed(1)} s (specs patched within ${patchedS.toFixed(1)} s)\n`,
        );
        assert(deadFoos.size > 0, 'the killed member had Foos');
        assert(
          takeover <= boundS,
          `the dead member's share taken over ${takeover.toFixed(1)} s after the kill, over its Lease (${durationS} s) + ${TAKEOVER_SLACK_S} s`,
        );
        return `${states.length} Foos converged to replicas 2; the dead member's ${deadFoos.size} taken over ${Math.min(...dead).toFixed(1)} to ${takeover.toFixed(1)} s after the kill (bound ${boundS} s), the others' ${Math.min(...others).toFixed(1)} to ${Math.max(...others).toFixed(1)} s`;
      },
    );

    await step(
      "the killed member's container restarted in its pod and rejoined: the ring of 3 again; the dead member's Foos reconciled by their new owner, no Foo by two members at once",
      async () => {
        assert(victim, 'a member was killed');
        const pod = await until(
          `${victim.pod} restarted and Ready`,
          () => {
            const p = h.json('get', 'pod', victim!.pod, '-n', NS);
            const restarted = (p.status?.containerStatuses?.[0]?.restartCount ?? 0) >= 1;
            const ready = p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True');
            return restarted && ready ? p : undefined;
          },
          60,
          1000,
        );
        ringAfter = await until(
          `${MEMBERS} live members, the restarted one among them, one view acknowledged by all`,
          () => {
            const live = liveMembers();
            if (live.length !== MEMBERS || !live.some((m) => m.pod === victim!.pod)) return undefined;
            const view = viewHash(live.map((m) => m.member));
            const acks = leases()
              .filter((l) => live.some((m) => m.member === l.metadata.name))
              .map((l) => l.metadata.annotations?.[SHARD_VIEW_ANNOTATION]);
            return acks.every((a) => a === view) ? live : undefined;
          },
          60,
          1000,
        );
        const rejoined = ringAfter.find((m) => m.pod === victim!.pod)!;
        assert(rejoined.member !== victim.member, `the restarted process joined as a new member (${rejoined.member})`);
        // The dead member's Foos were first reconciled after the kill under the first view without it: by their owner
        // in the new ring (or among the survivors). Other Foos may have been reconciled by their old owner under the views in between (a key
        // that moves to the new member moves once every member acknowledged), but never by two members at a time:
        // one member's Synced Event (its first to last occurrence), then another's, never overlapping.
        const byIdentity = new Map([...members, ...ringAfter].map((m) => [m.identity, m]));
        const all = syncedEvents();
        const after = all.filter((e) => e.last > killedAt);
        const deadShare = namespaces.filter((ns) => ownerOf(ns, members) === victim!.member);
        // (If the dead Lease expired before the restarted member joined, the view in between is the two survivors.)
        const survivors = ringAfter.filter((m) => m.pod !== victim!.pod);
        const wrong = after.filter(
          (e) =>
            deadShare.includes(e.ns) &&
            ![ownerOf(e.ns, ringAfter), ownerOf(e.ns, survivors)].includes(byIdentity.get(e.instance)?.member),
        );
        assert(
          wrong.length === 0,
          `the dead member's Foos reconciled after the kill by another member than their owner in the new ring: ${wrong.map((e) => `${e.foo} by ${e.instance}`).join(', ')}`,
        );
        const overlapping = [...new Set(all.map((e) => e.foo))].filter((f) => {
          const spans = all.filter((e) => e.foo === f).sort((x, y) => x.first - y.first);
          return spans.some((e, i) => i > 0 && e.instance !== spans[i - 1].instance && e.first <= spans[i - 1].last);
        });
        assert(overlapping.length === 0, `Foos reconciled by two members at a time: ${overlapping.join(', ')}`);
        assert(
          new Set(after.map((e) => e.foo)).size === fooCount(),
          `a Synced Event after the kill for ${new Set(after.map((e) => e.foo)).size} of ${fooCount()} Foos`,
        );
        const moved = [...new Set(all.map((e) => e.foo))].filter(
          (f) => new Set(all.filter((e) => e.foo === f).map((e) => e.instance)).size > 1,
        );
        return `${pod.metadata.name} restart ${pod.status.containerStatuses[0].restartCount}, member ${rejoined.member}; ring ${ringAfter.map((m) => m.member).join(', ')}; ${after.length} Synced Events after the kill; ${moved.length} Foos reconciled by two members in turn, none at once; the dead member's by their new owner`;
      },
    );
  } finally {
    await step(
      "cleanup: everything the suite created deleted, the ring's label removed, the demo's Foo controller back as before",
      async () => {
        // Every part runs even when one fails (the demo's controller must come back for the suites after this one).
        const failures: string[] = [];
        const attempt = async (what: string, fn: () => unknown) => {
          try {
            await fn();
          } catch (err) {
            failures.push(`${what}: ${(err as Error).message}`);
          }
        };
        await attempt('webhook configuration', () =>
          h.kubectl('delete', 'mutatingwebhookconfiguration', NAME, '--ignore-not-found', '--wait=true'),
        );
        // Namespaces finish deleting (their Foos, Deployments, ReplicaSets) while the rest is cleaned up.
        if (namespaces.length) {
          await attempt('namespaces', () =>
            h.kubectl('delete', 'namespace', ...namespaces, '--ignore-not-found', '--wait=false'),
          );
        }
        // The members leave the ring first (their Leases deleted), so nothing relabels what is unlabelled below.
        await attempt('members', async () => {
          h.kubectl('delete', 'deployment', NAME, '-n', NS, '--ignore-not-found', '--wait=true', '--timeout=60s');
          await until(
            'the members gone',
            () =>
              (h.json('get', 'pods', '-n', NS, '-l', `app.kubernetes.io/instance=${NAME}`).items as any[]).length === 0,
            60,
            500,
          );
        });
        await attempt("the ring's label on the demo's objects", () => {
          for (const kind of ['foos', 'deployments']) {
            for (const o of h.json('get', kind, '-A', '-l', LABEL).items as any[]) {
              if (namespaces.includes(o.metadata.namespace)) continue; // going with its namespace
              h.kubectl('label', kind, o.metadata.name, '-n', o.metadata.namespace, `${LABEL}-`);
            }
          }
        });
        await attempt("the chart's cluster-scoped objects and namespace", () => {
          const clusterScoped = applied.filter((o: any) => !o.metadata.namespace && o.kind !== 'Namespace');
          for (const o of clusterScoped) h.kubectl('delete', o.kind, o.metadata.name, '--ignore-not-found');
          h.kubectl('delete', 'namespace', NS, '--ignore-not-found', '--wait=false');
        });
        if (demoScaledDown) {
          await attempt("the demo's Foo controller", async () => {
            h.kubectl('scale', 'deployment', DEMO.name, '-n', DEMO.namespace, `--replicas=${demoSpec.replicas}`);
            await until(
              "the demo's Foo controller Available and leading",
              () => {
                const d = h.json('get', 'deployment', DEMO.name, '-n', DEMO.namespace);
                const pods = h.json('get', 'pods', '-n', DEMO.namespace).items as any[];
                const holder = h.json('get', 'lease', DEMO.lease, '-n', DEMO.namespace).spec?.holderIdentity ?? '';
                return (
                  (d.status?.availableReplicas ?? 0) >= demoSpec.replicas &&
                  pods.some((p) => !p.metadata.deletionTimestamp && holder.startsWith(`${p.metadata.name}_`))
                );
              },
              120,
              1000,
            );
            const spec = h.json('get', 'deployment', DEMO.name, '-n', DEMO.namespace).spec;
            assert(
              JSON.stringify(spec) === JSON.stringify(demoSpec),
              `the demo's Deployment spec differs from before the suite: ${JSON.stringify(spec)}`,
            );
          });
        }
        await attempt("the suite's namespaces gone", () =>
          until(
            "the suite's namespaces gone",
            () => [...namespaces, NS].every((ns) => !h.exists('namespace', ns)),
            120,
            1000,
          ),
        );
        assert(failures.length === 0, failures.join('; '));
        const left = [
          ...(h.json('get', 'foos,deployments', '-A', '-l', LABEL).items as any[]).map(
            (o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`,
          ),
          ...(h.json('get', 'leases', '-A', '-l', `${SHARD_RING_LABEL}=${NAME}`).items as any[]).map(
            (o) => `Lease ${o.metadata.namespace}/${o.metadata.name}`,
          ),
          ...applied
            .filter((o: any) =>
              h.exists(o.kind, o.metadata.name, ...(o.metadata.namespace ? ['-n', o.metadata.namespace] : [])),
            )
            .map((o: any) => `${o.kind} ${o.metadata.name}`),
        ];
        assert(left.length === 0, `left behind: ${left.join(', ')}`);
        return `${applied.length} objects of the chart and ${namespaces.length} namespaces deleted; demo ${DEMO.name} back to ${demoSpec?.replicas} replica(s), same spec`;
      },
    );
  }
}

/** A Foo as a user writes it. */
function fooObject(namespace: string, name: string, replicas: number): object {
  return {
    apiVersion: 'samplecontroller.k8s.io/v1alpha1',
    kind: 'Foo',
    metadata: { name, namespace },
    spec: { deploymentName: name, replicas },
  };
}
