import { ContractOf, NetworkPeerOf } from '../apimachinery/controller-contract';
import { KindInfo, knownKind, parseApiVersion } from '../apimachinery/kinds';
import { ResourceScope } from '../apiserver/crd-manifest';
import { ICustomResourceDefinition, isCustomResourceDefinitionLike } from '../crd/icustom-resource-definition';

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
 * What a controller does against the API and on the network, declared once. RBAC, the watch
 * scope, the Deployment's flags and the NetworkPolicy's egress are all derived from it, in the
 * spirit of kubebuilder's `+kubebuilder:rbac` markers but typed and checked. The one contract
 * shape (`ContractOf`) with kinds as references or CRD constructs: a contract declared with
 * `defineContract` of `cdk8s-operator/runtime` (kinds as `{ apiVersion, kind, plural }`) is one
 * of these, so the controller is wired from it and the chart passes the same object here.
 *
 * @see https://book.kubebuilder.io/reference/markers/rbac
 */
export type ControllerContract = ContractOf<KindSelector>;

/** Pods the controller connects to: `{ podsOf, podLabels, ports }` (NetworkPolicy egress). */
export type NetworkPeer = NetworkPeerOf<KindSelector>;

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
export function resolveKind(
  selector: KindSelector,
  crds: readonly ICustomResourceDefinition[],
  field: string,
): ResolvedKind {
  if (isCustomResourceDefinitionLike(selector)) return kindOfCrd(selector);
  const { group, version } = parseApiVersionAt(selector.apiVersion, field);
  const fromCrd = crds.find((c) => c.group === group && c.names.kind === selector.kind);
  if (fromCrd) return kindOfCrd(fromCrd);
  const builtIn = knownKind(group, selector.kind);
  if (builtIn) return { ...builtIn, custom: false };
  if (selector.plural !== undefined && selector.namespaced !== undefined) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(selector.plural)) {
      throw new Error(`${field}.plural: must be a lowercase resource name, got '${selector.plural}'`);
    }
    return {
      group,
      version,
      kind: selector.kind,
      plural: selector.plural,
      namespaced: selector.namespaced,
      custom: false,
    };
  }
  throw new Error(
    `${field}: no known plural for kind '${selector.kind}' in '${selector.apiVersion}'; ` +
      'pass its CustomResourceDefinition in `crds`, or give `plural` and `namespaced`',
  );
}

function parseApiVersionAt(apiVersion: string, field: string) {
  try {
    return parseApiVersion(apiVersion);
  } catch (e) {
    throw new Error(`${field}.${(e as Error).message}`);
  }
}
