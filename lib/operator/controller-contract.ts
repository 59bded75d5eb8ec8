import { ResourceScope } from '../apiserver/crd-manifest';
import { ICustomResourceDefinition, isCustomResourceDefinitionLike } from '../crd/icustom-resource-definition';
import { KindInfo, knownKind, parseApiVersion } from '../apimachinery/kinds';

/**
 * A kind named by `apiVersion` + `kind`, e.g. `{ apiVersion: 'apps/v1', kind: 'Deployment' }`.
 * Built-in kinds are looked up in a table; custom kinds in the CRDs given to the operator.
 */
export interface KindReference {
  /** `<group>/<version>`, or `v1` for the core group. */
  readonly apiVersion: string;
  readonly kind: string;
  /**
   * Resource name for RBAC, only for a kind that is neither built in nor among the operator's CRDs
   * (e.g. a third-party CRD installed separately).
   * @default - looked up
   */
  readonly plural?: string;
  /**
   * Whether the kind is namespaced; needed together with `plural`.
   * @default - looked up
   */
  readonly namespaced?: boolean;
}

/** A kind, either as a reference or as the CRD construct that defines it. */
export type KindSelector = KindReference | ICustomResourceDefinition;

/**
 * What a controller does against the API, declared once. RBAC, the watch scope and the
 * Deployment's flags are all derived from it, in the spirit of kubebuilder's
 * `+kubebuilder:rbac` markers but typed and checked. A contract declared with
 * `defineContract` of `cdk8s-operator/runtime` (kinds as `{ apiVersion, kind, plural }`) is one of
 * these: the controller is wired from it and the chart passes the same object here.
 *
 * @see https://book.kubebuilder.io/reference/markers/rbac
 */
export interface ControllerContract {
  /** Kinds the controller lists and watches (its informers): `get`, `list`, `watch`. */
  readonly watches: readonly KindSelector[];
  /**
   * Kinds the controller creates and garbage-collects through owner references:
   * `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`.
   * Owner references with `blockOwnerDeletion` also need `update` on the owner's `<plural>/finalizers`.
   * @default []
   */
  readonly owns?: readonly KindSelector[];
  /**
   * Kinds the controller creates and manages only under names it derives itself (e.g. a generated
   * credentials Secret `<db>-credentials`): `get`, `create`, `update`, `patch`, `delete` — no `list`
   * or `watch`, so the controller can read only the objects it asks for by name. The least-privilege
   * way to own Secrets: the controller reads them uncached (`client.get`) instead of through an informer.
   * @default []
   */
  readonly ownsByName?: readonly KindSelector[];
  /**
   * Kinds the controller reads without watching (uncached `get`/`list`), e.g. a referenced Secret.
   * @default []
   */
  readonly reads?: readonly KindSelector[];
  /**
   * Kinds the controller writes without owning them (`create`, `update`, `patch`; no `delete`).
   * @default []
   */
  readonly writes?: readonly KindSelector[];
  /**
   * The controller writes `status` of its custom resources (the CRDs in `watches`): `<plural>/status` get, update, patch.
   * @default false
   */
  readonly status?: boolean;
  /**
   * The controller adds and removes finalizers on its custom resources: `update`/`patch` on `<plural>`
   * and `update` on `<plural>/finalizers`.
   * @default false
   */
  readonly finalizers?: boolean;
  /**
   * The controller emits Events (`events.k8s.io` and core): `create`, `patch`.
   * @default false
   */
  readonly events?: boolean;
  /**
   * The controller takes a `coordination.k8s.io` Lease before reconciling. Required when replicas > 1.
   * @default false
   */
  readonly leaderElection?: boolean;
  /**
   * The namespaces the controller watches: a Role + RoleBinding in each and `WATCH_NAMESPACE`
   * (one informer per namespace in the runtime). The same as `OperatorProps.watchNamespaces`; set
   * it here when the controller's code declares its contract (`cdk8s-operator/runtime`'s
   * `defineContract`), so controller and chart cannot disagree.
   * @default - cluster-wide (or `OperatorProps.watchNamespaces`)
   */
  readonly watchNamespaces?: readonly string[];
}

/** A kind resolved to its API coordinates. */
export interface ResolvedKind extends KindInfo {
  /** Defined by one of the operator's CRDs. */
  readonly custom: boolean;
}

/** The kind a CRD defines. @internal */
export function kindOfCrd(crd: ICustomResourceDefinition): ResolvedKind {
  return {
    group: crd.group,
    version: crd.storageVersion,
    kind: crd.names.kind,
    plural: crd.names.plural,
    namespaced: crd.scope === ResourceScope.NAMESPACED,
    custom: true,
  };
}

/**
 * Resolves a selector to group/plural/scope: a CRD construct directly, a reference first against
 * `crds`, then the built-in table, then its own `plural`/`namespaced`.
 * Throws, naming `field` and the kind, when none of these knows it.
 *
 * @internal
 */
export function resolveKind(selector: KindSelector, crds: readonly ICustomResourceDefinition[], field: string): ResolvedKind {
  if (isCustomResourceDefinitionLike(selector)) return kindOfCrd(selector);
  const { group, version } = parseApiVersionAt(selector.apiVersion, field);
  const fromCrd = crds.find(c => c.group === group && c.names.kind === selector.kind);
  if (fromCrd) return kindOfCrd(fromCrd);
  const builtIn = knownKind(group, selector.kind);
  if (builtIn) return { ...builtIn, custom: false };
  if (selector.plural !== undefined && selector.namespaced !== undefined) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(selector.plural)) {
      throw new Error(`${field}.plural: must be a lowercase resource name, got '${selector.plural}'`);
    }
    return { group, version, kind: selector.kind, plural: selector.plural, namespaced: selector.namespaced, custom: false };
  }
  throw new Error(`${field}: no known plural for kind '${selector.kind}' in '${selector.apiVersion}'; `
    + 'pass its CustomResourceDefinition in `crds`, or give `plural` and `namespaced`');
}

function parseApiVersionAt(apiVersion: string, field: string) {
  try {
    return parseApiVersion(apiVersion);
  } catch (e) {
    throw new Error(`${field}.${(e as Error).message}`);
  }
}
