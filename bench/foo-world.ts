// The Foo workload around the controller under test, identical for every controller: N Foos created
// up front, a stand-in for the Deployment controller and kubelet (there is none on a bare control
// plane) that marks each new Deployment available, a watch that notices the moment every Foo has
// converged, and a final object-by-object check of the end state. All of it talks to the apiserver
// through plain-kube.ts (plain HTTPS), not through the runtime under test.
import { Obj, PlainKube, PlainMirror, sortedJson } from './plain-kube';

export const FOO = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };
export const NAMESPACE = 'default';
const fooPath = (namespace: string) => `/apis/samplecontroller.k8s.io/v1alpha1/namespaces/${namespace}/foos`;
const deploymentPath = (namespace: string) => `/apis/apps/v1/namespaces/${namespace}/deployments`;
const FOOS = fooPath(NAMESPACE);
const DEPLOYMENTS = deploymentPath(NAMESPACE);

/** An object as far as the end-state comparison reads it (the apiserver's JSON). */
type Loose = { readonly metadata?: any; readonly spec?: any; readonly status?: any };

/** Requests the driver keeps in flight while creating Foos and marking Deployments available. */
const DRIVER_PARALLELISM = 16;

/**
 * Where Foo `i` lives: with one namespace, `default` (every benchmark before namespaces were a choice); with more,
 * `foo-<i mod namespaces>` (the Foos spread evenly, so a ring keyed by namespace has something to split). Names stay
 * unique across namespaces: the world keys its objects by name.
 */
export function fooNamespace(i: number, namespaces: number): string {
  return namespaces <= 1 ? NAMESPACE : `foo-${i % namespaces}`;
}

function foo(i: number, namespaces: number): Obj {
  return {
    apiVersion: FOO.apiVersion,
    kind: FOO.kind,
    metadata: { name: `foo-${i}`, namespace: fooNamespace(i, namespaces) },
    spec: { deploymentName: `foo-${i}`, replicas: 1 },
  };
}

/** Runs `task` over `items` with at most `parallel` in flight. */
export async function inParallel<T>(
  items: readonly T[],
  parallel: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await task(items[next++]);
    }),
  );
}

/** Creates Foos `foo-0` to `foo-<n-1>` spread over `namespaces` namespaces (made first when more than one). */
export async function createFoos(kube: PlainKube, n: number, namespaces = 1): Promise<void> {
  if (namespaces > 1) {
    await inParallel(
      Array.from({ length: namespaces }, (_, i) => fooNamespace(i, namespaces)),
      DRIVER_PARALLELISM,
      async (name) => {
        await kube.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      },
    );
  }
  await inParallel(
    Array.from({ length: n }, (_, i) => i),
    DRIVER_PARALLELISM,
    async (i) => {
      await kube.request('POST', fooPath(fooNamespace(i, namespaces)), foo(i, namespaces));
    },
  );
}

/** Why a Foo is not converged, or undefined when it is (the upstream end state). */
export function notConverged(f: Loose, d: Loose | undefined): string | undefined {
  const spec = f.spec as { deploymentName?: string; replicas?: number } | undefined;
  if (!d) return 'no Deployment';
  const owner = (
    d.metadata?.ownerReferences as Array<{ controller?: boolean; uid?: string; kind?: string }> | undefined
  )?.find((r) => r.controller);
  if (owner?.uid !== f.metadata?.uid || owner?.kind !== FOO.kind) {
    return 'Deployment has no controller ownerReference to its Foo';
  }
  if ((d.spec as { replicas?: number } | undefined)?.replicas !== (spec?.replicas ?? 1)) {
    return `Deployment replicas ${(d.spec as any)?.replicas} != ${spec?.replicas}`;
  }
  const available = (d.status as { availableReplicas?: number } | undefined)?.availableReplicas;
  if (available !== (spec?.replicas ?? 1)) return 'Deployment not yet available';
  const reported = (f.status as { availableReplicas?: number } | undefined)?.availableReplicas;
  if (reported !== available) return `Foo status.availableReplicas ${reported} != Deployment's ${available}`;
  return undefined;
}

/** Watches Foos and Deployments; marks Deployments available; tells when all N Foos converged. */
export class FooWorld {
  private readonly foos: PlainMirror;
  private readonly deployments: PlainMirror;
  private readonly converged = new Set<string>();
  private readonly marking = new Set<string>();
  private readonly toMark: string[] = [];
  private markers = 0;
  private deploymentsComplete: number | undefined;
  private allConverged: number | undefined;
  private onDone: (() => void) | undefined;
  /** The collections the world lists and watches: one namespace's, or (several namespaces) the cluster's. */
  private readonly collections: { readonly foos: string; readonly deployments: string };

  /** `namespaces`: as given to {@link createFoos}. */
  constructor(
    private readonly kube: PlainKube,
    private readonly n: number,
    namespaces = 1,
  ) {
    this.collections =
      namespaces > 1
        ? { foos: `/apis/samplecontroller.k8s.io/v1alpha1/${FOO.plural}`, deployments: '/apis/apps/v1/deployments' }
        : { foos: FOOS, deployments: DEPLOYMENTS };
    this.foos = new PlainMirror(kube, this.collections.foos, (o) => this.check(o.metadata.name));
    this.deployments = new PlainMirror(kube, this.collections.deployments, (d) => this.deploymentChanged(d));
  }

  async start(): Promise<void> {
    await Promise.all([this.foos.start(), this.deployments.start()]);
  }

  /** Resolves with the time (ms since epoch) when every Foo had converged; rejects at the deadline. */
  waitConverged(deadlineMs: number): Promise<{ convergedAtMs: number; deploymentsAtMs?: number }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`only ${this.converged.size}/${this.n} Foos converged before the timeout`)),
        Math.max(0, deadlineMs - Date.now()),
      );
      this.onDone = () => {
        clearTimeout(timer);
        resolve({ convergedAtMs: this.allConverged!, deploymentsAtMs: this.deploymentsComplete });
      };
      if (this.allConverged !== undefined) this.onDone();
    });
  }

  get convergedCount(): number {
    return this.converged.size;
  }

  async stop(): Promise<void> {
    this.foos.stop();
    this.deployments.stop();
  }

  /** Lists both kinds afresh and checks every Foo; returns the problems (empty = all converged). */
  async verify(): Promise<string[]> {
    const [foos, deployments] = await Promise.all([
      this.kube.list(this.collections.foos),
      this.kube.list(this.collections.deployments),
    ]);
    const byName = new Map(deployments.items.map((d) => [d.metadata.name, d]));
    const problems: string[] = [];
    if (foos.items.length !== this.n) problems.push(`${foos.items.length} Foos, expected ${this.n}`);
    if (deployments.items.length !== this.n) {
      problems.push(`${deployments.items.length} Deployments, expected ${this.n}`);
    }
    for (const f of foos.items) {
      const why = notConverged(f, byName.get(f.spec?.deploymentName ?? ''));
      if (why) problems.push(`${f.metadata.name}: ${why}`);
    }
    return problems;
  }

  /**
   * The end state object by object, without what differs between any two runs (uids, timestamps,
   * resourceVersions): the comparison of test/controllers/foo/upstream-parity.test.ts, at bench scale.
   * Keys `Foo/<name>` and `Deployment/<name>`, values canonical JSON.
   */
  async endState(): Promise<Map<string, string>> {
    const [foos, deployments] = await Promise.all([
      this.kube.list(this.collections.foos),
      this.kube.list(this.collections.deployments),
    ]);
    return normalizedEndState(foos.items, deployments.items);
  }

  private check(name: string): void {
    const f = this.foos.items.get(name);
    if (!f) return;
    const d = this.deployments.items.get(f.spec?.deploymentName ?? '');
    if (notConverged(f, d)) this.converged.delete(name);
    else this.converged.add(name);
    if (this.converged.size === this.n && this.allConverged === undefined) {
      this.allConverged = Date.now();
      this.onDone?.();
    }
  }

  private deploymentChanged(d: Obj): void {
    if (this.deploymentsComplete === undefined && this.deployments.items.size >= this.n) {
      this.deploymentsComplete = Date.now();
    }
    const owner = d.metadata.ownerReferences?.find((r) => r.controller);
    if (owner) this.check(owner.name);
    const replicas = d.spec?.replicas ?? 1;
    if (d.status?.availableReplicas === replicas) return;
    const name = d.metadata.name;
    if (this.marking.has(name)) return;
    this.marking.add(name);
    this.toMark.push(name);
    this.pump();
  }

  /** The stand-in for the Deployment controller and kubelet: all replicas available at once. */
  private pump(): void {
    while (this.markers < DRIVER_PARALLELISM && this.toMark.length) {
      const name = this.toMark.shift()!;
      this.markers++;
      void this.markAvailable(name).finally(() => {
        this.markers--;
        this.marking.delete(name);
        this.pump();
      });
    }
  }

  private async markAvailable(name: string): Promise<void> {
    const d = this.deployments.items.get(name);
    if (!d) return;
    const replicas = d.spec?.replicas ?? 1;
    const status = {
      observedGeneration: d.metadata.generation,
      replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      updatedReplicas: replicas,
    };
    try {
      await this.kube.request(
        'PATCH',
        `${deploymentPath(d.metadata.namespace ?? NAMESPACE)}/${encodeURIComponent(name)}/status`,
        { status },
        'application/merge-patch+json',
      );
    } catch (err) {
      // Deleted meanwhile, or a conflict: the next watch event of this Deployment tries again.
      process.stderr.write(`bench driver: marking ${name} available failed: ${String(err)}\n`);
    }
  }
}

/**
 * Annotations the comparison leaves out: the Deployment controller's revision (set on both where one runs)
 * and our runtime's hash of what it applied (how it skips writes in steady state): the one known difference.
 */
const IGNORED_ANNOTATIONS = new Set(['deployment.kubernetes.io/revision', 'cdk8s-operator.io/applied-hash']);

/** See {@link FooWorld.endState}. */
export function normalizedEndState(foos: readonly Loose[], deployments: readonly Loose[]): Map<string, string> {
  const owners = new Map<string | undefined, string | undefined>(foos.map((f) => [f.metadata?.uid, f.metadata?.name]));
  const out = new Map<string, string>();
  for (const f of foos) out.set(`Foo/${f.metadata?.name}`, sortedJson({ spec: f.spec, status: f.status }));
  for (const d of deployments) {
    const annotations = Object.fromEntries(
      Object.entries(d.metadata?.annotations ?? {}).filter(([k]) => !IGNORED_ANNOTATIONS.has(k)),
    );
    out.set(
      `Deployment/${d.metadata?.name}`,
      sortedJson({
        labels: d.metadata?.labels,
        annotations,
        ownerReferences: ((d.metadata?.ownerReferences ?? []) as Array<{ uid?: string }>).map(({ uid, ...ref }) => ({
          ...ref,
          owner: owners.get(uid),
        })),
        spec: d.spec,
        availableReplicas: (d.status as { availableReplicas?: number } | undefined)?.availableReplicas ?? 0,
      }),
    );
  }
  return out;
}

/** Objects whose normalized end state differs between two runs (or exists in one only), as `key: a != b`. */
export function endStateDifferences(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(key);
    const y = b.get(key);
    if (x !== y) out.push(`${key}: ${x ?? 'absent'} != ${y ?? 'absent'}`);
  }
  return out.sort();
}
