/**
 * The controller contract: what a controller reads and writes against the API, declared once as
 * plain data. The controller is wired from it (the manager refuses wiring it does not grant) and
 * the chart imports the same object: the `Operator` construct of `cdk8s-operator` derives RBAC,
 * `WATCH_NAMESPACE` and the NetworkPolicy from it (its `ControllerContract` accepts this shape).
 * kubebuilder's `+kubebuilder:rbac` markers, but typed, and checked on both sides.
 *
 * Expected flow:
 * ```ts
 * // controllers/foo/contract.ts — imported by the controller and by the chart
 * export const FOO_CONTRACT = defineContract({
 *   watches: [FOO], owns: [DEPLOYMENT], status: true, events: true, leaderElection: true,
 * });
 * // controller
 * const manager = new Manager({ contract: FOO_CONTRACT });
 * new ControllerBuilder(manager, { name: 'foo' }).for(FOO).owns(DEPLOYMENT).complete(reconciler);
 * // chart
 * new Operator(chart, 'foo', { crds: [crd], image, contract: FOO_CONTRACT });
 * ```
 *
 * Guarantees:
 * - `for(K)` and `watches(K)` need `get, list, watch` on K (K in `watches` or `owns`); `owns(K)`
 *   needs K in `owns` (`create, update, patch, delete` as well); an event recorder needs `events`;
 *   leader election needs `leaderElection`; watched namespaces must be among the contract's.
 * - A violation throws {@link ContractViolationError} when the wiring is built (before anything
 *   runs), naming the controller, the wiring call, the missing verbs, the resource, and the clause
 *   that would grant it.
 *
 * Caveats: kinds are compared by API group and kind (not version), as RBAC does.
 */
import { groupKind, parseApiVersion, ResourceRef, WELL_KNOWN_PLURALS } from './resource';

/**
 * What a controller does against the API. Same field names and meaning as the `ControllerContract`
 * of the construct library, with kinds as {@link ResourceRef}s (custom kinds are resolved by the
 * chart against its CRDs).
 */
export interface ControllerContract {
  /** Kinds the controller lists and watches (informers): `get`, `list`, `watch`. */
  readonly watches: readonly ResourceRef[];
  /** Kinds it creates and garbage-collects through owner references: read verbs and `create`, `update`, `patch`, `delete`. @default [] */
  readonly owns?: readonly ResourceRef[];
  /**
   * Kinds it creates and manages only under names it derives itself (e.g. a credentials Secret):
   * `get`, `create`, `update`, `patch`, `delete` — no `list`/`watch`, so no informer; read them with
   * `client.get`. @default []
   */
  readonly ownsByName?: readonly ResourceRef[];
  /** Kinds it reads without watching: `get`, `list`. @default [] */
  readonly reads?: readonly ResourceRef[];
  /** Kinds it writes without owning them: `create`, `update`, `patch`. @default [] */
  readonly writes?: readonly ResourceRef[];
  /** It writes the `status` subresource of its custom kinds. @default false */
  readonly status?: boolean;
  /** It adds and removes finalizers on its custom kinds. @default false */
  readonly finalizers?: boolean;
  /** It emits Events. @default false */
  readonly events?: boolean;
  /** It takes a `coordination.k8s.io` Lease before reconciling. @default false */
  readonly leaderElection?: boolean;
  /**
   * The namespaces it watches (one informer per namespace; a Role in each). Also what the chart sets
   * as `WATCH_NAMESPACE`.
   * @default - cluster-wide (a ClusterRole; `WATCH_NAMESPACE` may still narrow the watch)
   */
  readonly watchNamespaces?: readonly string[];
}

/** Declares a contract (identity, for inference and a checked shape). Throws on an empty or duplicate entry. */
export function defineContract<C extends ControllerContract>(contract: C): C {
  if (contract.watches.length === 0) throw new Error('contract.watches: must name at least one kind, got []');
  for (const clause of ['watches', 'owns', 'ownsByName', 'reads', 'writes'] as const) {
    const seen = new Set<string>();
    (contract[clause] ?? []).forEach((ref, i) => {
      const id = groupKind(ref);
      if (seen.has(id)) throw new Error(`contract.${clause}[${i}]: duplicate kind '${id}'`);
      seen.add(id);
    });
  }
  const namespaces = contract.watchNamespaces;
  if (namespaces) {
    if (namespaces.length === 0) throw new Error('contract.watchNamespaces: must name at least one namespace (omit it for cluster-wide), got []');
    namespaces.forEach((ns, i) => {
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) throw new Error(`contract.watchNamespaces[${i}]: must be a DNS label, got '${ns}'`);
      if (namespaces.indexOf(ns) !== i) throw new Error(`contract.watchNamespaces[${i}]: duplicate namespace '${ns}'`);
    });
  }
  return contract;
}

/** The verbs each kind clause grants (the construct library's RBAC derivation grants the same). */
export const CLAUSE_VERBS = {
  watches: ['get', 'list', 'watch'],
  owns: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  ownsByName: ['get', 'create', 'update', 'patch', 'delete'],
  reads: ['get', 'list'],
  writes: ['create', 'update', 'patch'],
} as const;

/** A use of the API that a contract must grant. */
export type ContractNeed =
  | { readonly use: 'for' | 'owns' | 'watches'; readonly resource: ResourceRef }
  | { readonly use: 'events' | 'leaderElection' }
  | { readonly use: 'namespace'; readonly namespace: string };

/** Thrown for wiring that the contract does not grant. */
export class ContractViolationError extends Error {
  constructor(public readonly controller: string, public readonly violations: readonly string[]) {
    super(`${controller}: wiring not granted by its contract:\n${violations.map((v) => `  - ${v}`).join('\n')}`);
    this.name = 'ContractViolationError';
  }
}

/** Verbs the contract grants on a kind (by group and kind). */
export function grantedVerbs(contract: ControllerContract, resource: ResourceRef): Set<string> {
  const id = groupKind(resource);
  const verbs = new Set<string>();
  for (const clause of ['watches', 'owns', 'ownsByName', 'reads', 'writes'] as const) {
    if ((contract[clause] ?? []).some((r) => groupKind(r) === id)) for (const v of CLAUSE_VERBS[clause]) verbs.add(v);
  }
  return verbs;
}

/** `deployments.apps` (or the kind when the plural is unknown), as RBAC and kubectl name a resource. */
export function resourceName(ref: ResourceRef): string {
  const plural = ref.plural ?? WELL_KNOWN_PLURALS[`${ref.apiVersion}/${ref.kind}`] ?? ref.kind;
  const { group } = parseApiVersion(ref.apiVersion);
  return group ? `${plural}.${group}` : plural;
}

/** Each need the contract does not grant, described (empty when all are granted). */
export function contractViolations(contract: ControllerContract, needs: readonly ContractNeed[]): string[] {
  const out: string[] = [];
  for (const need of needs) {
    switch (need.use) {
      case 'for':
      case 'watches':
      case 'owns': {
        const wanted = need.use === 'owns' ? CLAUSE_VERBS.owns : CLAUSE_VERBS.watches;
        const granted = grantedVerbs(contract, need.resource);
        const missing = wanted.filter((v) => !granted.has(v));
        if (missing.length === 0) break;
        const clause = need.use === 'owns' ? 'contract.owns' : 'contract.watches (or contract.owns)';
        out.push(`${need.use}(${need.resource.apiVersion} ${need.resource.kind}) needs ${missing.join(', ')} on ${resourceName(need.resource)}: declare it in ${clause}`);
        break;
      }
      case 'events':
        if (!contract.events) out.push('an event recorder needs create, patch on events.events.k8s.io: set contract.events');
        break;
      case 'leaderElection':
        if (!contract.leaderElection) out.push('leader election needs get, create, update on leases.coordination.k8s.io: set contract.leaderElection');
        break;
      case 'namespace':
        if (contract.watchNamespaces && !contract.watchNamespaces.includes(need.namespace)) {
          out.push(`watching namespace '${need.namespace}' needs it in contract.watchNamespaces (grants ${contract.watchNamespaces.join(', ')})`);
        }
        break;
    }
  }
  return out;
}

/** Throws {@link ContractViolationError} unless the contract grants every need. */
export function assertContractGrants(controller: string, contract: ControllerContract, needs: readonly ContractNeed[]): void {
  const violations = contractViolations(contract, needs);
  if (violations.length) throw new ContractViolationError(controller, violations);
}
