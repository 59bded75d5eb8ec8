/**
 * Control planes shared by the test files of one jest process: one per Kubernetes version and configuration,
 * started by the first suite that asks for it and reset to its freshly started state when a suite releases it.
 *
 * Starting a control plane costs seconds of CPU (etcd, kube-apiserver's post-start hooks); most suites only
 * create CRDs and objects and read the verdicts, so they need a clean plane, not a new one. A suite opts in with
 * `shared: true` (see describeRealApiServer); suites that restart, compact or pause the plane keep their own.
 *
 * Reset (`resetToBaseline`) deletes whatever was created after the plane started: the admission configuration first
 * (a webhook whose server is gone would refuse the writes below), every CRD (its custom resources' finalizers
 * cleared first), every other cluster-scoped object and namespace (their contents and finalizers too, since no
 * namespace controller may be running), new objects in `default`, and what kubectl cached of its discovery. A plane
 * that cannot be reset within its budget is stopped and not reused: the next suite starts a fresh one.
 *
 * An idle plane is paused (ControlPlane.pause: its processes stopped with SIGSTOP) until a suite acquires it: idle, a
 * kube-apiserver and its etcd still take about 2.5 % of a core (0.76 CPU-s in 30 s, measured), paused nothing, and
 * resuming takes milliseconds where a fresh start costs about 4 s of CPU. Before planes were paused, one idle for a
 * minute was stopped, and in a whole run 52 shared planes started where the workers met 15 configurations.
 * Idle planes are capped (MAX_IDLE per jest process, ENVTEST_SHARED_PLANES_MAX_IDLE) for their memory (about 0.5 GB
 * each, their etcd's data in /dev/shm), paused or not: keeping every one alive exhausted the memory of a 2-core CI
 * machine (43 planes, 11 GB of /dev/shm). The least recently used idle plane is stopped first.
 *
 * The pool lives on a Node built-in module object, which jest shares between the test files of one process
 * (each file gets its own module registry). It must be the module object itself: `import * as` compiles to
 * `__importStar`, a fresh copy per importing file, which gave every test file a pool of its own (planes were never
 * reused, and 53 stayed alive in one run).
 *
 * An idle plane does not keep its jest process alive (ControlPlane.unref): a worker whose files are done exits at
 * once, and its planes' processes with it; holding them, every worker that had one was killed by jest after 500 ms
 * ("A worker process has failed to exit gracefully"). test/envtest/global-teardown.ts removes their folders and stops
 * any process left.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the module object itself (see above)
import childProcess = require('node:child_process');
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ControlPlane, ControlPlaneOptions } from '../../runtime/envtest';
import { forgetKubectlDiscovery } from '../../runtime/envtest/kubeconfig';

interface PooledPlane {
  readonly plane: ControlPlane;
  readonly baseline: Baseline;
  inUse: boolean;
  /** When it was last given back (ms since epoch): the oldest idle plane goes first when too many are idle. */
  releasedAt: number;
  /** The suite's view of the plane while it is in use (see viewIn). */
  view?: ControlPlane;
}

/** Idle planes kept per jest process: the configurations one worker meets in a run (a whole run: 3 to 8). */
const MAX_IDLE = Number(process.env.ENVTEST_SHARED_PLANES_MAX_IDLE ?? 6);

type Pool = Map<string, PooledPlane[]>;

const POOL_KEY = Symbol.for('cdk8s-operator.test.shared-planes');

function pool(): Pool {
  const holder = childProcess as unknown as Record<symbol, Pool | undefined>;
  return (holder[POOL_KEY] ??= new Map());
}

/**
 * What identifies a configuration: everything but the CRDs, which are installed per suite. No `assetsDir` is
 * KUBEBUILDER_ASSETS, the binaries describeEachApiServerVersion names for the default version.
 */
function keyOf(opts: ControlPlaneOptions): string {
  const { crds: _crds, crdPaths: _crdPaths, ...rest } = opts;
  const config = { ...rest, assetsDir: rest.assetsDir ?? process.env.KUBEBUILDER_ASSETS };
  return JSON.stringify(config, Object.keys(config).sort());
}

/** A running control plane of this configuration, reset and free; started when there is none. */
export async function acquireSharedPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  const key = keyOf(opts);
  const planes = pool().get(key) ?? [];
  pool().set(key, planes);
  let entry = planes.find((p) => !p.inUse);
  if (!entry) {
    await stopIdleBeyond(MAX_IDLE - 1);
    const plane = await ControlPlane.start({ ...opts, crds: undefined, crdPaths: undefined });
    recordForTeardown(plane);
    entry = { plane, baseline: await snapshot(plane), inUse: false, releasedAt: 0 };
    planes.push(entry);
  }
  entry.inUse = true;
  entry.plane.ref();
  entry.view = viewIn(entry.plane);
  try {
    await entry.plane.resume();
    await installSuiteCrds(entry.view, opts);
  } catch (e) {
    await releaseSharedPlane(entry.view);
    throw e;
  }
  return entry.view;
}

/**
 * The pooled plane as an instance of this test file's own ControlPlane class, on the same processes. The plane was
 * started by another file, whose module registry is another realm: what its methods return (parsed JSON) would have
 * that realm's Object and Array, which `toStrictEqual` tells apart from this file's ("serializes to the same string").
 * The methods are this file's, the state the pooled plane's: a copy of the state would keep to itself the
 * kube-controller-manager that installing a suite's CRDs restarts, and the pooled plane, stopping the one it knew,
 * would leave that one running (six were found running after their planes were gone in one CI run).
 */
function viewIn(plane: ControlPlane): ControlPlane {
  const methods = ControlPlane.prototype;
  return new Proxy(plane, {
    get: (target, key, receiver) => (key in methods ? Reflect.get(methods, key, receiver) : Reflect.get(target, key)),
    getPrototypeOf: () => methods,
  });
}

/** Gives a plane back: reset to its baseline, or stopped when the reset fails. */
export async function releaseSharedPlane(plane: ControlPlane): Promise<void> {
  for (const [key, planes] of pool()) {
    const entry = planes.find((p) => p.view === plane);
    if (!entry) continue;
    entry.view = undefined;
    try {
      await resetToBaseline(entry.plane, entry.baseline);
      entry.inUse = false;
      entry.plane.unref();
      await entry.plane.pause();
      entry.releasedAt = Date.now();
      await stopIdleBeyond(MAX_IDLE);
    } catch (e) {
      console.warn(`shared control plane not reused (reset failed: ${(e as Error).message})`);
      planes.splice(planes.indexOf(entry), 1);
      if (!planes.length) pool().delete(key);
      await entry.plane.stop();
    }
    return;
  }
}

/** Stops the least recently released idle planes until at most `keep` are idle. */
async function stopIdleBeyond(keep: number): Promise<void> {
  const idle = [...pool()].flatMap(([key, planes]) => planes.filter((p) => !p.inUse).map((entry) => ({ key, entry })));
  idle.sort((a, b) => a.entry.releasedAt - b.entry.releasedAt);
  for (const { key, entry } of idle.slice(0, Math.max(0, idle.length - keep))) await stopIdle(key, entry);
}

/** Takes an idle plane out of the pool (synchronously, so no suite acquires it meanwhile) and stops it. */
async function stopIdle(key: string, entry: PooledPlane): Promise<void> {
  const planes = pool().get(key) ?? [];
  planes.splice(planes.indexOf(entry), 1);
  if (!planes.length) pool().delete(key);
  await entry.plane.stop();
}

async function installSuiteCrds(plane: ControlPlane, opts: ControlPlaneOptions): Promise<void> {
  const { readCrds } = await import('../../runtime/envtest/crds');
  const crds = [...(opts.crds ?? []), ...readCrds(opts.crdPaths ?? [])];
  if (crds.length) await plane.installCrds(crds);
}

/** The teardown file lists the folders of the planes still running (see global-teardown.ts). */
function recordForTeardown(plane: ControlPlane): void {
  const dir = process.env.ENVTEST_SHARED_PLANES_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`), plane.dir);
}

// --- reset ---------------------------------------------------------------------------------------------------

interface ResourceType {
  /** e.g. /api/v1/configmaps, /apis/apps/v1/deployments */
  readonly path: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

interface Baseline {
  /** `${type path}/${namespace ?? ''}/${name}` of every object there was right after start. */
  readonly objects: ReadonlySet<string>;
}

/** Namespaces whose new objects are deleted one by one (other new namespaces are deleted whole). */
const KEPT_NAMESPACES = new Set(['default', 'kube-public']);
/** Objects the control plane itself creates or renews after start; deleting them only makes it do so again. */
const SELF_MANAGED = new Set(['kubernetes', 'kube-root-ca.crt', 'default']);
/** Types whose objects the apiserver manages (APIServices follow the CRDs, Events expire by themselves). */
const SKIPPED_TYPES = /\/(apiservices|events|componentstatuses|flowschemas|prioritylevelconfigurations)$/;
const RESET_BUDGET_MS = 30_000;

async function ok(
  plane: ControlPlane,
  method: string,
  path: string,
  body?: unknown,
  contentType?: string,
): Promise<any> {
  const r = await plane.request(method, path, body, contentType ? { contentType } : {});
  if (r.code >= 300 && r.code !== 404 && r.code !== 409) {
    throw new Error(`${method} ${path}: ${r.code} ${r.body?.message ?? ''}`);
  }
  return r.code === 404 ? undefined : r.body;
}

async function resourceTypes(plane: ControlPlane): Promise<ResourceType[]> {
  const groupVersions = ['/api/v1'];
  const apis = await ok(plane, 'GET', '/apis');
  for (const g of apis?.groups ?? []) groupVersions.push(`/apis/${g.preferredVersion.groupVersion}`);
  const lists = await Promise.all(groupVersions.map((gv) => ok(plane, 'GET', gv).then((l) => ({ gv, l }))));
  return lists.flatMap(({ gv, l }) =>
    (l?.resources ?? [])
      .filter((r: any) => !r.name.includes('/') && r.verbs.includes('list') && r.verbs.includes('delete'))
      .map((r: any) => ({ path: `${gv}/${r.name}`, namespaced: r.namespaced, verbs: r.verbs }))
      .filter((t: ResourceType) => !SKIPPED_TYPES.test(t.path)),
  );
}

async function listAll(plane: ControlPlane, type: ResourceType): Promise<any[]> {
  return (await ok(plane, 'GET', type.path))?.items ?? [];
}

function idOf(type: ResourceType, o: any): string {
  return `${type.path}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}

function objectPath(type: ResourceType, o: any): string {
  if (!type.namespaced) return `${type.path}/${o.metadata.name}`;
  const [prefix, plural] = [
    type.path.slice(0, type.path.lastIndexOf('/')),
    type.path.slice(type.path.lastIndexOf('/') + 1),
  ];
  return `${prefix}/namespaces/${o.metadata.namespace}/${plural}/${o.metadata.name}`;
}

async function snapshot(plane: ControlPlane): Promise<Baseline> {
  const objects = new Set<string>();
  for (const type of await resourceTypes(plane)) for (const o of await listAll(plane, type)) objects.add(idOf(type, o));
  return { objects };
}

/** Clears an object's finalizers (nothing may be left running to remove them), then deletes it. */
async function remove(plane: ControlPlane, type: ResourceType, o: any): Promise<void> {
  const path = objectPath(type, o);
  if (o.metadata.finalizers?.length) {
    await ok(plane, 'PATCH', path, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  }
  // no kubelet may confirm a pod's graceful deletion: delete at once
  await ok(plane, 'DELETE', `${path}?gracePeriodSeconds=0`);
}

/**
 * The objects of a custom resource version, listed again while the apiserver still calls the conversion webhook the
 * reset has just switched off: it rebuilds a CRD's handler a moment after the CRD changes (a reset in rehearsal YB
 * failed on the gone webhook's Service right after the patch, and the plane was stopped instead of reused).
 */
async function listAfterConversionOff(plane: ControlPlane, type: ResourceType, deadline: number): Promise<any[]> {
  for (;;) {
    try {
      return await listAll(plane, type);
    } catch (e) {
      if (!/conversion webhook/.test((e as Error).message) || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function resetToBaseline(plane: ControlPlane, baseline: Baseline): Promise<void> {
  const deadline = Date.now() + RESET_BUDGET_MS;
  const isNew = (type: ResourceType, o: any) =>
    !baseline.objects.has(idOf(type, o)) && !SELF_MANAGED.has(o.metadata.name);

  const crdType: ResourceType = {
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    namespaced: false,
    verbs: [],
  };
  const types = await resourceTypes(plane);
  const removeNew = async (type: ResourceType) => {
    for (const o of (await listAll(plane, type)).filter((x) => isNew(type, x))) await remove(plane, type, o);
  };

  // 1. Admission configuration first, so that no webhook or policy of the last suite judges what follows: a webhook
  // whose server is gone would refuse every write it is asked about (clearing a custom resource's finalizers too).
  const isAdmission = (t: ResourceType) => /\/admissionregistration\.k8s\.io\//.test(t.path);
  for (const type of types.filter(isAdmission)) await removeNew(type);

  // 2. CRDs next (their custom resources go with them), so the types below are the built-in ones again.
  const crds = (await listAll(plane, crdType)).filter((c) => isNew(crdType, c));
  await Promise.all(
    crds.map(async (crd) => {
      // A conversion webhook of the last suite may be gone (its Service deleted, its pod never run): every list of
      // another version than the stored one would fail on it. Without conversion the apiserver lists what it stored.
      if (crd.spec.conversion?.strategy === 'Webhook') {
        await ok(
          plane,
          'PATCH',
          objectPath(crdType, crd),
          { spec: { conversion: { strategy: 'None', webhook: null } } },
          'application/merge-patch+json',
        );
      }
      for (const v of crd.spec.versions.filter((x: any) => x.served)) {
        const type: ResourceType = {
          path: `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}`,
          namespaced: crd.spec.scope === 'Namespaced',
          verbs: [],
        };
        for (const o of await listAfterConversionOff(plane, type, deadline)) {
          if (o.metadata.finalizers?.length) await remove(plane, type, o);
        }
      }
      await ok(plane, 'DELETE', objectPath(crdType, crd));
    }),
  );

  // 3. The other cluster-scoped objects; new namespaces are deleted whole in 5.
  const builtin = types.filter(
    (t) => !crds.some((c) => t.path.startsWith(`/apis/${c.spec.group}/`)) && t.path !== crdType.path && !isAdmission(t),
  );
  const newNamespaces: string[] = [];
  for (const type of builtin.filter((t) => !t.namespaced)) {
    for (const o of (await listAll(plane, type)).filter((x) => isNew(type, x))) {
      if (type.path === '/api/v1/namespaces') newNamespaces.push(o.metadata.name);
      else await remove(plane, type, o);
    }
  }

  // 4. Namespaced objects: everything in new namespaces, new objects in the kept ones.
  await Promise.all(
    builtin
      .filter((t) => t.namespaced)
      .map(async (type) => {
        for (const o of await listAll(plane, type)) {
          const ns = o.metadata.namespace;
          if (newNamespaces.includes(ns) || (KEPT_NAMESPACES.has(ns) && isNew(type, o))) await remove(plane, type, o);
        }
      }),
  );

  // 5. The new namespaces themselves, finalized here (kube-controller-manager may not be running).
  await Promise.all(
    newNamespaces.map(async (name) => {
      await ok(plane, 'DELETE', `/api/v1/namespaces/${name}`);
      const ns = await ok(plane, 'GET', `/api/v1/namespaces/${name}`);
      if (ns) await ok(plane, 'PUT', `/api/v1/namespaces/${name}/finalize`, { ...ns, spec: { finalizers: [] } });
    }),
  );

  // 6. Wait until the CRDs and namespaces are really gone: a suite that installs the same CRD must start clean, and
  // one that walks discovery or the OpenAPI v3 index must not meet a group whose CRD is gone (both drop it a moment
  // after the CRD, each on its own controller's schedule).
  const deletedGroups = new Set(crds.map((c) => c.spec.group as string));
  for (;;) {
    const left = [
      ...(await listAll(plane, crdType)).filter((c) => isNew(crdType, c)).map((c) => `CRD ${c.metadata.name}`),
      ...(await ok(plane, 'GET', '/api/v1/namespaces')).items
        .filter((n: any) => newNamespaces.includes(n.metadata.name))
        .map((n: any) => `namespace ${n.metadata.name}`),
      ...((await ok(plane, 'GET', '/apis'))?.groups ?? [])
        .filter((g: any) => deletedGroups.has(g.name))
        .map((g: any) => `API group ${g.name} in discovery`),
      ...Object.keys((await ok(plane, 'GET', '/openapi/v3'))?.paths ?? {})
        .filter((p) => deletedGroups.has(p.split('/')[1]) && p.startsWith('apis/'))
        .map((p) => `OpenAPI v3 document ${p}`),
    ];
    if (!left.length) break;
    if (Date.now() > deadline) throw new Error(`still there after ${RESET_BUDGET_MS} ms: ${left.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }

  // 7. What kubectl cached of the last suite's kinds: the next suite's kubectl must meet the server as a fresh plane's.
  forgetKubectlDiscovery(plane.url);
}
