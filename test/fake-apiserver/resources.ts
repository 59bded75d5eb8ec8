/** The resource catalogue: built-in resources and CRD-served ones, plus discovery documents. */
import { ResourceRef } from './status';

export interface ScaleSpec {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath?: string;
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: string;
  readonly jsonPath: string;
  readonly description?: string;
  readonly format?: string;
  readonly priority?: number;
}

export interface ResourceInfo extends ResourceRef {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: string[];
  readonly categories: string[];
  readonly status: boolean;
  readonly scale?: ScaleSpec;
  /** metadata.generation is maintained (bumped on spec changes). */
  readonly generation: boolean;
  /** served from a CRD: schema-driven defaulting/pruning/validation, no strategic merge patch. */
  readonly custom: boolean;
  readonly schema?: any;
  readonly printerColumns?: PrinterColumn[];
  /** Virtual resources that only answer POST (access reviews); nothing is stored. */
  readonly createOnly?: boolean;
  /** Warning sent on every request to a deprecated CRD version. */
  readonly deprecationWarning?: string;
  /** CRD selectableFields (field selector labels beyond metadata.name/namespace), without the leading dot. */
  readonly selectableFields?: string[];
  /** group/plural: the storage key shared by all versions of a resource. */
  readonly storageKey: string;
}

export function apiVersionOf(r: { group: string; version: string }): string {
  return r.group ? `${r.group}/${r.version}` : r.version;
}

interface BuiltinSpec {
  gv: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  shortNames?: string[];
  status?: boolean;
  scale?: boolean;
  generation?: boolean;
  categories?: string[];
  createOnly?: boolean;
}

const BUILTINS: BuiltinSpec[] = [
  { gv: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false, shortNames: ['ns'], status: true },
  { gv: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true, shortNames: ['cm'] },
  { gv: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true },
  { gv: 'v1', plural: 'services', kind: 'Service', namespaced: true, shortNames: ['svc'], status: true, categories: ['all'] },
  { gv: 'v1', plural: 'serviceaccounts', kind: 'ServiceAccount', namespaced: true, shortNames: ['sa'] },
  { gv: 'v1', plural: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, shortNames: ['pvc'], status: true },
  { gv: 'v1', plural: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  { gv: 'v1', plural: 'pods', kind: 'Pod', namespaced: true, shortNames: ['po'], status: true, categories: ['all'] },
  { gv: 'apps/v1', plural: 'deployments', kind: 'Deployment', namespaced: true, shortNames: ['deploy'], status: true, scale: true, generation: true, categories: ['all'] },
  { gv: 'apps/v1', plural: 'statefulsets', kind: 'StatefulSet', namespaced: true, shortNames: ['sts'], status: true, scale: true, generation: true, categories: ['all'] },
  { gv: 'batch/v1', plural: 'jobs', kind: 'Job', namespaced: true, status: true, generation: true, categories: ['all'] },
  { gv: 'batch/v1', plural: 'cronjobs', kind: 'CronJob', namespaced: true, shortNames: ['cj'], status: true, generation: true, categories: ['all'] },
  { gv: 'coordination.k8s.io/v1', plural: 'leases', kind: 'Lease', namespaced: true },
  { gv: 'events.k8s.io/v1', plural: 'events', kind: 'Event', namespaced: true, shortNames: ['ev'] },
  { gv: 'policy/v1', plural: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, shortNames: ['pdb'], status: true, generation: true },
  { gv: 'networking.k8s.io/v1', plural: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, shortNames: ['netpol'], generation: true },
  { gv: 'rbac.authorization.k8s.io/v1', plural: 'roles', kind: 'Role', namespaced: true },
  { gv: 'rbac.authorization.k8s.io/v1', plural: 'rolebindings', kind: 'RoleBinding', namespaced: true },
  { gv: 'rbac.authorization.k8s.io/v1', plural: 'clusterroles', kind: 'ClusterRole', namespaced: false },
  { gv: 'rbac.authorization.k8s.io/v1', plural: 'clusterrolebindings', kind: 'ClusterRoleBinding', namespaced: false },
  { gv: 'authorization.k8s.io/v1', plural: 'selfsubjectaccessreviews', kind: 'SelfSubjectAccessReview', namespaced: false, createOnly: true },
  { gv: 'authorization.k8s.io/v1', plural: 'subjectaccessreviews', kind: 'SubjectAccessReview', namespaced: false, createOnly: true },
  { gv: 'apiextensions.k8s.io/v1', plural: 'customresourcedefinitions', kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], status: true, generation: true, categories: ['api-extensions'] },
];

function builtinInfo(b: BuiltinSpec): ResourceInfo {
  const [group, version] = b.gv.includes('/') ? b.gv.split('/') : ['', b.gv];
  return {
    group, version, plural: b.plural, singular: b.kind.toLowerCase(), kind: b.kind, listKind: `${b.kind}List`,
    namespaced: b.namespaced, shortNames: b.shortNames ?? [], categories: b.categories ?? [], status: !!b.status,
    scale: b.scale ? { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } : undefined,
    // events.k8s.io/v1 Events are the core Events, stored once
    createOnly: b.createOnly,
    generation: !!b.generation, custom: false, storageKey: b.plural === 'events' ? '/events' : `${group}/${b.plural}`,
  };
}

/** Resources served by one CRD (one entry per served version). */
export function crdResources(crd: any): ResourceInfo[] {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  return (spec.versions ?? []).filter((v: any) => v.served !== false).map((v: any): ResourceInfo => ({
    group: spec.group, version: v.name, plural: names.plural, singular: names.singular ?? String(names.kind).toLowerCase(),
    kind: names.kind, listKind: names.listKind ?? `${names.kind}List`, namespaced: spec.scope !== 'Cluster',
    shortNames: names.shortNames ?? [], categories: names.categories ?? [],
    status: !!v.subresources?.status, scale: v.subresources?.scale, generation: true, custom: true,
    schema: v.schema?.openAPIV3Schema, printerColumns: v.additionalPrinterColumns, storageKey: `${spec.group}/${names.plural}`,
    selectableFields: (v.selectableFields ?? []).map((f: any) => String(f.jsonPath).replace(/^\./, '')),
    deprecationWarning: v.deprecated ? (v.deprecationWarning ?? `${spec.group}/${v.name} ${names.kind} is deprecated`) : undefined,
  }));
}

export class ResourceCatalog {
  private readonly builtins: ResourceInfo[] = BUILTINS.map(builtinInfo);
  private readonly custom = new Map<string, ResourceInfo[]>(); // CRD name -> resources

  all(): ResourceInfo[] {
    return [...this.builtins, ...[...this.custom.values()].flat()];
  }

  registerCrd(crd: any): void {
    this.custom.set(crd.metadata.name, crdResources(crd));
  }

  unregisterCrd(name: string): ResourceInfo[] {
    const gone = this.custom.get(name) ?? [];
    this.custom.delete(name);
    return gone;
  }

  find(group: string, version: string, plural: string): ResourceInfo | undefined {
    return this.all().find((r) => r.group === group && r.version === version && r.plural === plural);
  }

  byKind(apiVersion: string, kind: string): ResourceInfo | undefined {
    return this.all().find((r) => apiVersionOf(r) === apiVersion && r.kind === kind);
  }

  groupVersions(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const r of this.all()) {
      if (!r.group) continue;
      const vs = out.get(r.group) ?? [];
      if (!vs.includes(r.version)) vs.push(r.version);
      out.set(r.group, vs);
    }
    return out;
  }

  /** GET /api */
  apiVersions(serverAddress: string): any {
    return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
  }

  /** GET /apis */
  apiGroupList(): any {
    const groups = [...this.groupVersions().entries()].map(([name, versions]) => {
      const sorted = sortVersions(versions);
      return {
        name,
        versions: sorted.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
        preferredVersion: { groupVersion: `${name}/${sorted[0]}`, version: sorted[0] },
      };
    });
    return { kind: 'APIGroupList', apiVersion: 'v1', groups };
  }

  /** GET /apis/<group> */
  apiGroup(group: string): any | undefined {
    const versions = this.groupVersions().get(group);
    if (!versions) return undefined;
    const sorted = sortVersions(versions);
    return {
      kind: 'APIGroup', apiVersion: 'v1', name: group,
      versions: sorted.map((v) => ({ groupVersion: `${group}/${v}`, version: v })),
      preferredVersion: { groupVersion: `${group}/${sorted[0]}`, version: sorted[0] },
    };
  }

  /** GET /api/v1, /apis/<group>/<version> */
  apiResourceList(group: string, version: string): any | undefined {
    const rs = this.all().filter((r) => r.group === group && r.version === version);
    if (rs.length === 0) return undefined;
    const resources: any[] = [];
    for (const r of rs) {
      const main: any = {
        name: r.plural, singularName: r.singular, namespaced: r.namespaced, kind: r.kind,
        verbs: r.createOnly ? ['create'] : ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      };
      if (r.shortNames.length) main.shortNames = r.shortNames;
      if (r.categories.length) main.categories = r.categories;
      resources.push(main);
      if (r.status) resources.push({ name: `${r.plural}/status`, singularName: '', namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'patch', 'update'] });
      if (r.scale) {
        resources.push({ name: `${r.plural}/scale`, singularName: '', namespaced: r.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
      }
    }
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
  }
}

/** Kubernetes version priority: GA > beta > alpha, higher numbers first. */
export function sortVersions(versions: string[]): string[] {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0];
    const stage = m[2] === 'alpha' ? 2 : m[2] === 'beta' ? 1 : 0;
    return [stage, -Number(m[1]), -Number(m[3] ?? 0)];
  };
  return [...versions].sort((a, b) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i] - rb[i];
    return a.localeCompare(b);
  });
}
