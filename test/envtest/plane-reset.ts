/**
 * Resetting a shared control plane (plane-broker.ts) to the state it had right after it started: every CRD (its custom
 * resources' finalizers cleared first), every other cluster-scoped object and namespace created since (their contents
 * and finalizers too, since no namespace controller may be running), and new objects in `default`.
 */
import { ControlPlane } from '../../runtime/envtest';

interface ResourceType {
  /** e.g. /api/v1/configmaps, /apis/apps/v1/deployments */
  readonly path: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
}

export interface Baseline {
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

export async function snapshot(plane: ControlPlane): Promise<Baseline> {
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

export async function resetToBaseline(plane: ControlPlane, baseline: Baseline): Promise<void> {
  const deadline = Date.now() + RESET_BUDGET_MS;
  const isNew = (type: ResourceType, o: any) =>
    !baseline.objects.has(idOf(type, o)) && !SELF_MANAGED.has(o.metadata.name);

  // 1. CRDs first (their custom resources go with them), so the types below are the built-in ones again.
  const crdType: ResourceType = {
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    namespaced: false,
    verbs: [],
  };
  const crds = (await listAll(plane, crdType)).filter((c) => isNew(crdType, c));
  const types = await resourceTypes(plane);
  await Promise.all(
    crds.map(async (crd) => {
      for (const v of crd.spec.versions.filter((x: any) => x.served)) {
        const type: ResourceType = {
          path: `/apis/${crd.spec.group}/${v.name}/${crd.spec.names.plural}`,
          namespaced: crd.spec.scope === 'Namespaced',
          verbs: [],
        };
        // a version served through a conversion webhook that is gone cannot be listed: the CRD's deletion removes its
        // objects all the same (only finalizers would hold it, and the wait below reports them)
        const objects = await listAll(plane, type).catch(() => []);
        for (const o of objects) if (o.metadata.finalizers?.length) await remove(plane, type, o);
      }
      await ok(plane, 'DELETE', objectPath(crdType, crd));
    }),
  );

  // 2. Admission configuration next, so that no webhook or policy of the last suite judges the deletions below.
  const builtin = types.filter(
    (t) => !crds.some((c) => t.path.startsWith(`/apis/${c.spec.group}/`)) && t.path !== crdType.path,
  );
  const byAdmissionFirst = [...builtin].sort(
    (a, b) => Number(!/admissionregistration/.test(a.path)) - Number(!/admissionregistration/.test(b.path)),
  );
  const newNamespaces: string[] = [];
  for (const type of byAdmissionFirst.filter((t) => !t.namespaced)) {
    for (const o of (await listAll(plane, type)).filter((x) => isNew(type, x))) {
      if (type.path === '/api/v1/namespaces') newNamespaces.push(o.metadata.name);
      else await remove(plane, type, o);
    }
  }

  // 3. Namespaced objects: everything in new namespaces, new objects in the kept ones.
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

  // 4. The new namespaces themselves, finalized here (kube-controller-manager may not be running).
  await Promise.all(
    newNamespaces.map(async (name) => {
      await ok(plane, 'DELETE', `/api/v1/namespaces/${name}`);
      const ns = await ok(plane, 'GET', `/api/v1/namespaces/${name}`);
      if (ns) await ok(plane, 'PUT', `/api/v1/namespaces/${name}/finalize`, { ...ns, spec: { finalizers: [] } });
    }),
  );

  // 5. Wait until the CRDs and namespaces are really gone: a suite that installs the same CRD must start clean, and
  // one that walks discovery must not meet a group whose CRD is gone (discovery drops it a moment after the CRD).
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
    ];
    if (!left.length) return;
    if (Date.now() > deadline) throw new Error(`still there after ${RESET_BUDGET_MS} ms: ${left.join(', ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
