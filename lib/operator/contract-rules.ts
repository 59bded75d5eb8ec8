import { ControllerContract, KindSelector, ResolvedKind, resolveKind } from './controller-contract';
import {
  boundRoleProblems,
  boundRoleResource,
  CLAUSE_VERBS,
  contractShardAssignment,
  contractShardRanges,
  shardingProblems,
} from '../apimachinery/controller-contract';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';

/** One RBAC rule on one resource, with the reasons it exists. */
export interface RbacRule {
  /** API group, `''` for core. */
  readonly apiGroup: string;
  /** Resource or subresource, e.g. `foos` or `foos/status`. */
  readonly resource: string;
  readonly verbs: readonly string[];
  /** Limits the rule to named objects. @default - all objects */
  readonly resourceNames?: readonly string[];
  /** Why the rule exists, one entry per contract clause that needs it. */
  readonly reasons: readonly string[];
}

/** Rules derived from a contract, split by where they are granted. */
export interface ContractRules {
  /** Granted in the watch scope: a ClusterRole, or a Role in each watched namespace. */
  readonly rules: RbacRule[];
  /** Granted by a Role in the operator's own namespace (leader election). */
  readonly leaderElectionRules: RbacRule[];
  /** Granted cluster-wide whatever the watch scope (conversion and storage migration of `contract.conversion`). */
  readonly clusterRules: RbacRule[];
  /** The kinds of `contract.conversion`. */
  readonly conversionKinds: ResolvedKind[];
  /** The custom kinds the controller reconciles (custom kinds in `watches`). */
  readonly primaryKinds: ResolvedKind[];
}

/** Options for `rulesForContract`. @internal */
export interface ContractRulesOptions {
  /** CRDs the operator manages; custom kinds are resolved against them. */
  readonly crds: readonly ICustomResourceDefinition[];
  /** Namespaces watched. @default - cluster-wide */
  readonly watchNamespaces?: readonly string[];
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * The least-privilege rules a contract needs, each with its reasons.
 * Throws for a contract that cannot be granted as declared (unknown kind, duplicate kind in a
 * list, cluster-scoped kind with a namespaced watch scope, status/finalizers without a custom kind).
 *
 * @internal
 */
export function rulesForContract(contract: ControllerContract, options: ContractRulesOptions): ContractRules {
  const namespaced = options.watchNamespaces !== undefined;
  const rules: RbacRule[] = [];
  const resolveList = (list: readonly KindSelector[] | undefined, name: string) => {
    const seen = new Map<string, number>();
    return (list ?? []).map((sel, i) => {
      const field = `contract.${name}[${i}]`;
      const kind = resolveKind(sel, options.crds, field);
      const key = `${kind.group}/${kind.kind}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        throw new Error(`${field}: duplicate kind '${key}' (already at contract.${name}[${earlier}])`);
      }
      seen.set(key, i);
      if (namespaced && !kind.namespaced) {
        throw new Error(
          `${field}: kind '${key}' is cluster-scoped, but the watch scope is namespaced ` +
            `(watchNamespaces: ${JSON.stringify(options.watchNamespaces)}); a Role cannot grant it — watch cluster-wide instead`,
        );
      }
      return kind;
    });
  };

  const watches = resolveList(contract.watches, 'watches');
  if (watches.length === 0) throw new Error('contract.watches: must name at least one kind, got []');
  const owns = resolveList(contract.owns, 'owns');
  const ownsByName = resolveList(contract.ownsByName, 'ownsByName');
  const reads = resolveList(contract.reads, 'reads');
  const writes = resolveList(contract.writes, 'writes');

  for (const k of watches) rules.push(rbacRule(k.group, k.plural, CLAUSE_VERBS.watches, `watches ${k.kind}`));
  const shardProblems = shardingProblems(contract.sharding);
  if (shardProblems.length) throw new Error(shardProblems.join('; '));
  if (contractShardAssignment(contract) === 'labels') {
    // The shard assignment is a label on the sharded objects (runtime shard-labels.ts); owned kinds have patch already.
    // `hash` and `server` assignments write nothing on them: no patch (least privilege).
    for (const k of watches) {
      rules.push(
        rbacRule(k.group, k.plural, ['patch'], `shard ring: writes the shard assignment label on ${k.kind} objects`),
      );
    }
  }
  for (const k of owns) rules.push(rbacRule(k.group, k.plural, CLAUSE_VERBS.owns, `owns ${k.kind}`));
  for (const k of ownsByName) {
    rules.push(rbacRule(k.group, k.plural, CLAUSE_VERBS.ownsByName, `owns ${k.kind} by name (no list/watch)`));
  }
  for (const k of reads) rules.push(rbacRule(k.group, k.plural, CLAUSE_VERBS.reads, `reads ${k.kind}`));
  for (const k of writes) rules.push(rbacRule(k.group, k.plural, CLAUSE_VERBS.writes, `writes ${k.kind}`));

  const primaryKinds = watches.filter((k) => k.custom);
  if ((contract.status || contract.finalizers) && primaryKinds.length === 0) {
    const flag = contract.status ? 'status' : 'finalizers';
    throw new Error(
      `contract.${flag}: needs a custom resource in contract.watches (one of the operator's CRDs), ` +
        `got ${JSON.stringify(watches.map((k) => k.kind))}`,
    );
  }
  for (const k of primaryKinds) {
    if (contract.status) {
      rules.push(rbacRule(k.group, `${k.plural}/status`, ['get', 'update', 'patch'], `writes ${k.kind} status`));
    }
    if (contract.finalizers) {
      rules.push(rbacRule(k.group, k.plural, ['update', 'patch'], `adds and removes finalizers on ${k.kind}`));
      rules.push(rbacRule(k.group, `${k.plural}/finalizers`, ['update'], `adds and removes finalizers on ${k.kind}`));
    }
  }
  if (owns.length + ownsByName.length > 0) {
    // An ownerReference with blockOwnerDeletion: true needs update on the owner's finalizers
    // (OwnerReferencesPermissionEnforcement). Owners are the reconciled kinds.
    const owners = primaryKinds.length > 0 ? primaryKinds : watches;
    for (const k of owners) {
      rules.push(
        rbacRule(
          k.group,
          `${k.plural}/finalizers`,
          ['update'],
          `sets blockOwnerDeletion on owner references to ${k.kind} in owned objects`,
        ),
      );
    }
  }
  const bindProblems = boundRoleProblems(contract.binds);
  if (bindProblems.length) throw new Error(bindProblems.join('; '));
  for (const b of contract.binds ?? []) {
    // `bind` by name lets the controller refer to exactly this role in the bindings it writes (the apiserver's
    // escalation check then passes without the controller holding the role's permissions), and to no other
    rules.push({
      ...rbacRule(
        'rbac.authorization.k8s.io',
        boundRoleResource(b),
        ['bind'],
        `binds ${b.kind} ${b.name} (roleRef of the bindings it writes; contract.binds)`,
      ),
      resourceNames: [b.name],
    });
  }
  if (contract.events) {
    rules.push(rbacRule('events.k8s.io', 'events', ['create', 'patch'], 'emits events (events.k8s.io/v1)'));
    rules.push(rbacRule('', 'events', ['create', 'patch'], 'emits events (core/v1)'));
  }

  // Conversion: the migration rewrites objects in every namespace and trims the CRD's storedVersions, which
  // are cluster-wide; a namespaced grant could not make that safe.
  const conversionSeen = new Set<string>();
  const conversionKinds = (contract.conversion ?? []).map((sel, i) => {
    const field = `contract.conversion[${i}]`;
    const kind = resolveKind(sel, options.crds, field);
    const key = `${kind.group}/${kind.kind}`;
    if (!kind.custom) {
      throw new Error(
        `${field}: '${key}' is not defined by one of the operator's CRDs (pass it in crds); only custom kinds are converted`,
      );
    }
    if (conversionSeen.has(key)) throw new Error(`${field}: duplicate kind '${key}'`);
    conversionSeen.add(key);
    return kind;
  });
  const clusterRules: RbacRule[] = [];
  for (const k of conversionKinds) {
    const crd = `${k.plural}.${k.group}`;
    clusterRules.push(
      rbacRule(
        k.group,
        k.plural,
        ['list', 'update'],
        `storage version migration of ${k.kind}: rewrites every stored object, in every namespace`,
      ),
    );
    clusterRules.push({
      ...rbacRule(
        'apiextensions.k8s.io',
        'customresourcedefinitions',
        ['get', 'patch'],
        `conversion of ${k.kind}: reads its CRD, injects the webhook's CA bundle, records migration progress`,
      ),
      resourceNames: [crd],
    });
    clusterRules.push({
      ...rbacRule(
        'apiextensions.k8s.io',
        'customresourcedefinitions/status',
        ['update'],
        `storage version migration of ${k.kind}: trims status.storedVersions, reports the StorageVersionMigrated condition`,
      ),
      resourceNames: [crd],
    });
    // Kubernetes' in-tree migration where the cluster serves it (runtime/conversion/storage-migrator.ts): create
    // cannot be limited by name (the name is in the body, not the URL); reading and deleting are, to the one object
    // the migrator names after the storage version
    clusterRules.push(
      rbacRule(
        'storagemigration.k8s.io',
        'storageversionmigrations',
        ['create'],
        `storage version migration of ${k.kind}: starts kube-controller-manager's in-tree StorageVersionMigration where the cluster serves it`,
      ),
    );
    clusterRules.push({
      ...rbacRule(
        'storagemigration.k8s.io',
        'storageversionmigrations',
        ['get', 'delete'],
        `storage version migration of ${k.kind}: follows that StorageVersionMigration and deletes it once finished`,
      ),
      resourceNames: [`${k.version}.${crd}`],
    });
  }

  const leaderElectionRules = contract.leaderElection
    ? [
        rbacRule('coordination.k8s.io', 'leases', ['get', 'create', 'update'], 'leader election lease'),
        rbacRule('', 'events', ['create', 'patch'], 'leader election events'),
      ]
    : [];
  if (contractShardRanges(contract) === 'namespaces' && !namespaced) {
    clusterRules.push(
      rbacRule(
        '',
        'namespaces',
        ['get', 'list', 'watch'],
        "shard ring ranges: the ring's first member cuts the hash space by the cluster's namespaces (contract.sharding.ranges)",
      ),
    );
  }
  if (contract.sharding) {
    leaderElectionRules.push(
      rbacRule(
        'coordination.k8s.io',
        'leases',
        ['create', 'delete', 'get', 'list', 'update', 'watch'],
        "shard ring: each replica holds its member Lease, watches the ring's Leases and deletes those of members gone for good",
      ),
    );
  }

  return {
    rules: mergeRules(rules),
    leaderElectionRules: mergeRules(leaderElectionRules),
    primaryKinds,
    clusterRules: mergeRules(clusterRules),
    conversionKinds,
  };
}

/** One rule on one resource. @internal */
export function rbacRule(apiGroup: string, resource: string, verbs: readonly string[], reason: string): RbacRule {
  return { apiGroup, resource, verbs: [...verbs], reasons: [reason] };
}

/**
 * Merges rules on the same group, resource and resourceNames into one (verbs and reasons united,
 * order kept), so no resource appears twice.
 *
 * @internal
 */
export function mergeRules(rules: readonly RbacRule[]): RbacRule[] {
  const merged = new Map<string, RbacRule>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroup, r.resource, [...(r.resourceNames ?? [])].sort()]);
    const prev = merged.get(key);
    if (!prev) {
      merged.set(key, { ...r, verbs: sortVerbs(r.verbs), reasons: [...r.reasons] });
      continue;
    }
    merged.set(key, {
      ...prev,
      verbs: sortVerbs([...prev.verbs, ...r.verbs]),
      reasons: [...new Set([...prev.reasons, ...r.reasons])],
    });
  }
  return [...merged.values()];
}

/** Unique verbs in the usual order (get, list, watch, create, update, patch, delete, …). @internal */
export function sortVerbs(verbs: readonly string[]): string[] {
  const rank = (v: string) => {
    const i = VERB_ORDER.indexOf(v);
    return i < 0 ? VERB_ORDER.length : i;
  };
  return [...new Set(verbs)].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
