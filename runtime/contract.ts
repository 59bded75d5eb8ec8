/**
 * The controller contract: what a controller reads and writes against the API and which pods it
 * connects to, declared once as plain data. The controller is wired from it (the manager refuses
 * wiring it does not grant) and the chart imports the same object: the `Operator` construct of
 * `cdk8s-operator` derives RBAC, `WATCH_NAMESPACE` and NetworkPolicy egress (`connectsTo`) from it.
 * Both sides use one shape (`ContractOf` in lib/apimachinery, kinds named their own way).
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
 * - `defineContract` refuses a malformed contract at import time, listing every problem.
 * - A violation throws {@link ContractViolationError} when the wiring is built (before anything
 *   runs), naming the controller, the wiring call, the missing verbs, the resource, and the clause
 *   that would grant it.
 *
 * Caveats: kinds are compared by API group and kind (not version), as RBAC does.
 */
import { groupKind, parseApiVersion, ResourceRef, WELL_KNOWN_PLURALS } from './resource';
import {
  boundRoleProblems,
  CLAUSE_VERBS,
  ContractOf,
  contractShardAssignment,
  contractShardRanges,
  KIND_CLAUSES,
  NetworkPeerOf,
  networkPeerProblems,
  shardingProblems,
  ShardAssignment,
  webhookProblems,
} from '../lib/apimachinery/controller-contract';

/**
 * What a controller does against the API and on the network, kinds named by {@link ResourceRef}
 * (custom kinds are resolved by the chart against its CRDs). The one contract shape (`ContractOf`
 * in the package's API-machinery layer) that the `Operator` construct of `cdk8s-operator` accepts too.
 */
export type ControllerContract = ContractOf<ResourceRef>;

/** Pods the controller connects to (NetworkPolicy egress in the chart): `{ podsOf, podLabels, ports }`. */
export type NetworkPeer = NetworkPeerOf<ResourceRef>;

/**
 * Declares a contract (identity, for inference and a checked shape). Throws, listing every
 * problem, on an empty `watches`, a duplicate kind, a bad namespace, or a `connectsTo` peer that
 * is not an owned kind or has no labels or bad ports.
 */
export function defineContract<C extends ControllerContract>(contract: C): C {
  const problems: string[] = [];
  if (contract.watches.length === 0) problems.push('contract.watches: must name at least one kind, got []');
  for (const clause of KIND_CLAUSES) {
    const seen = new Set<string>();
    (contract[clause] ?? []).forEach((ref, i) => {
      const id = groupKind(ref);
      if (seen.has(id)) problems.push(`contract.${clause}[${i}]: duplicate kind '${id}'`);
      seen.add(id);
    });
  }
  const namespaces = contract.watchNamespaces;
  if (namespaces) {
    if (namespaces.length === 0) {
      problems.push('contract.watchNamespaces: must name at least one namespace (omit it for cluster-wide), got []');
    }
    namespaces.forEach((ns, i) => {
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) {
        problems.push(`contract.watchNamespaces[${i}]: must be a DNS label, got '${ns}'`);
      }
      if (namespaces.indexOf(ns) !== i) problems.push(`contract.watchNamespaces[${i}]: duplicate namespace '${ns}'`);
    });
  }
  const owned = new Set((contract.owns ?? []).map(groupKind));
  problems.push(
    ...networkPeerProblems(
      contract,
      (k) => owned.has(groupKind(k)),
      (k) => `${k.apiVersion} ${k.kind}`,
    ),
  );
  problems.push(...webhookProblems(contract, groupKind));
  problems.push(...boundRoleProblems(contract.binds));
  problems.push(...shardingProblems(contract.sharding));
  if (problems.length) throw new Error(`invalid controller contract:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return contract;
}

/** A use of the API that a contract must grant. */
export type ContractNeed =
  | { readonly use: 'for' | 'owns' | 'watches'; readonly resource: ResourceRef }
  | { readonly use: 'events' | 'leaderElection' }
  | {
      readonly use: 'sharding';
      readonly assignment: ShardAssignment;
      /** `ranges: 'namespaces'` over every namespace of the cluster (no watched namespaces): reads the namespaces. */
      readonly readsNamespaces?: boolean;
    }
  | { readonly use: 'conversion'; readonly resource: ResourceRef }
  | { readonly use: 'namespace'; readonly namespace: string }
  | { readonly use: 'webhook'; readonly type: 'validating' | 'defaulting'; readonly resource: ResourceRef };

/** Thrown for wiring that the contract does not grant. */
export class ContractViolationError extends Error {
  constructor(
    public readonly controller: string,
    public readonly violations: readonly string[],
  ) {
    super(`${controller}: wiring not granted by its contract:\n${violations.map((v) => `  - ${v}`).join('\n')}`);
    this.name = 'ContractViolationError';
  }
}

/** Verbs the contract grants on a kind (by group and kind). */
export function grantedVerbs(contract: ControllerContract, resource: ResourceRef): Set<string> {
  const id = groupKind(resource);
  const verbs = new Set<string>();
  for (const clause of KIND_CLAUSES) {
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
        out.push(
          `${need.use}(${need.resource.apiVersion} ${need.resource.kind}) needs ${missing.join(', ')} on ${resourceName(need.resource)}: declare it in ${clause}`,
        );
        break;
      }
      case 'events':
        if (!contract.events) {
          out.push('an event recorder needs create, patch on events.events.k8s.io: set contract.events');
        }
        break;
      case 'sharding':
        if (!contract.sharding) {
          out.push(
            "sharding needs get, list, watch, create, update, delete on leases.coordination.k8s.io in the operator's namespace: set contract.sharding",
          );
        } else if (need.assignment === 'labels' && contractShardAssignment(contract) !== 'labels') {
          out.push(
            `sharding with assignment 'labels' writes the shard label: needs patch on the sharded kinds, which contract.sharding ` +
              `(assignment '${contractShardAssignment(contract)}') does not grant: set contract.sharding: true, or run the manager with that assignment`,
          );
        }
        if (need.readsNamespaces && (contractShardRanges(contract) !== 'namespaces' || contract.watchNamespaces)) {
          out.push(
            "sharding with ranges 'namespaces' over all namespaces needs get, list, watch on namespaces, which the contract does not grant: set contract.sharding: { assignment: 'server', ranges: 'namespaces' }",
          );
        }
        break;
      case 'leaderElection':
        if (!contract.leaderElection) {
          out.push(
            'leader election needs get, create, update on leases.coordination.k8s.io: set contract.leaderElection',
          );
        }
        break;
      case 'conversion':
        if (!(contract.conversion ?? []).some((r) => groupKind(r) === groupKind(need.resource))) {
          out.push(
            `converting and migrating ${need.resource.apiVersion} ${need.resource.kind} needs its CRD (get, patch, /status update) and list, update ` +
              `on ${resourceName(need.resource)} in every namespace: declare it in contract.conversion`,
          );
        }
        break;
      case 'webhook': {
        const declared = (contract.webhooks ?? []).some(
          (w) => w.type === need.type && groupKind(w.for) === groupKind(need.resource),
        );
        if (!declared) {
          out.push(
            `a ${need.type} webhook for ${need.resource.apiVersion} ${need.resource.kind} needs it declared in contract.webhooks ({ type: '${need.type}', for: ... }): the chart emits its configuration from there`,
          );
        }
        break;
      }
      case 'namespace':
        if (contract.watchNamespaces && !contract.watchNamespaces.includes(need.namespace)) {
          out.push(
            `watching namespace '${need.namespace}' needs it in contract.watchNamespaces (grants ${contract.watchNamespaces.join(', ')})`,
          );
        }
        break;
    }
  }
  return out;
}

/** Throws {@link ContractViolationError} unless the contract grants every need. */
export function assertContractGrants(
  controller: string,
  contract: ControllerContract,
  needs: readonly ContractNeed[],
): void {
  const violations = contractViolations(contract, needs);
  if (violations.length) throw new ContractViolationError(controller, violations);
}
