/**
 * The one shape of a controller contract: what a controller does against the API and on the
 * network, declared once. It is generic in how a kind is named, because the two sides name kinds
 * differently: the runtime (`cdk8s-operator/runtime`'s `ControllerContract`) by
 * `{ apiVersion, kind, plural }`, the construct library (`ControllerContract` of `cdk8s-operator`)
 * also by CRD construct. A contract object declared with the runtime's `defineContract` is
 * therefore also a valid contract for the `Operator` construct: the controller is wired from it
 * and the chart derives RBAC, `WATCH_NAMESPACE` and NetworkPolicy egress from the same object.
 *
 * This module is plain data and checks only: no cdk8s, no client, so both sides may import it.
 *
 * @see https://book.kubebuilder.io/reference/markers/rbac
 */

/**
 * Pods the controller opens connections to (e.g. the database pods of an owned StatefulSet),
 * which the chart turns into NetworkPolicy egress.
 */
export interface NetworkPeerOf<K> {
  /**
   * The owned workload kind whose pods these are (must be in `owns`): a controller connects only to
   * pods it manages.
   */
  readonly podsOf: K;
  /** Labels the controller puts on those pods (their template); the egress rule selects pods by them. */
  readonly podLabels: Readonly<Record<string, string>>;
  /** TCP ports the controller connects to. */
  readonly ports: readonly number[];
}

/** A label selector (`metav1.LabelSelector`). */
export interface LabelSelectorOf {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    readonly values?: readonly string[];
  }[];
}

/** Operations an admission webhook can intercept. */
export type WebhookOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * An admission webhook the operator serves for a kind: the chart emits its Validating- or
 * MutatingWebhookConfiguration (admissionregistration.k8s.io/v1, Kubernetes 1.16+), the runtime
 * serves its handler at `webhookPath(type, for.apiVersion, for.kind)` and refuses to start while a
 * declared webhook has no handler. The operator's own namespace and `kube-system` are always excluded,
 * so an operator that is down never blocks its own recovery.
 */
export interface WebhookOf<K> {
  /** `validating` (allow or deny) or `defaulting` (a mutating webhook that completes the object). */
  readonly type: 'validating' | 'defaulting';
  /**
   * The kind admitted, at the version its handler is written against (other versions reach the
   * handler converted to it: `matchPolicy: Equivalent`).
   */
  readonly for: K;
  /** @default ['CREATE', 'UPDATE'] */
  readonly operations?: readonly WebhookOperation[];
  /**
   * What the apiserver does when the webhook cannot be called. `Fail` needs 2+ replicas (and the
   * PodDisruptionBudget that comes with them): synth refuses it on a single replica.
   * @default 'Fail'
   */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** 1-30 seconds (the apiserver's limit). @default 10 */
  readonly timeoutSeconds?: number;
  /**
   * CEL conditions (all must be true) before the webhook is called, compiled at synth. Variables:
   * `object`, `oldObject`, `request`, `authorizer`. GA in Kubernetes 1.30; beta and on by default in 1.28-1.29.
   * @default []
   */
  readonly matchConditions?: readonly { readonly name: string; readonly expression: string }[];
  /** ANDed with the exclusion of the operator's namespace and kube-system. @default - every other namespace */
  readonly namespaceSelector?: LabelSelectorOf;
  /** @default - every object */
  readonly objectSelector?: LabelSelectorOf;
  /**
   * The handler reads the request's Namespace (e.g. defaults from its annotations): `get` on namespaces,
   * by name for each watched namespace (all namespaces for a cluster-wide operator).
   * @default false
   */
  readonly readsNamespace?: boolean;
}

/**
 * A role the controller refers to in the RoleBindings or ClusterRoleBindings it writes. The apiserver refuses a
 * binding to a role whose every permission the writer does not hold (403 "attempting to grant RBAC permissions not
 * currently held"), unless the writer has `bind` on that role: this grants `bind` on it by name, and nothing broader.
 */
export interface BoundRole {
  /**
   * `ClusterRole` (bound by a RoleBinding in a namespace or by a ClusterRoleBinding), or `Role` (a Role in the
   * namespace of the RoleBinding, in each watched namespace).
   */
  readonly kind: 'ClusterRole' | 'Role';
  /** The role's name, e.g. the built-in `admin`, `edit` or `view`. */
  readonly name: string;
}

/** What a controller does against the API and on the network, with kinds named by `K`. */
export interface ContractOf<K> {
  /** Kinds the controller lists and watches (its informers): `get`, `list`, `watch`. */
  readonly watches: readonly K[];
  /**
   * Kinds the controller creates and garbage-collects through owner references:
   * `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`.
   * Owner references with `blockOwnerDeletion` also need `update` on the owner's `<plural>/finalizers`.
   * @default []
   */
  readonly owns?: readonly K[];
  /**
   * Kinds the controller creates and manages only under names it derives itself (e.g. a generated
   * credentials Secret `<db>-credentials`): `get`, `create`, `update`, `patch`, `delete` — no `list`
   * or `watch`, so no informer: the controller reads only the objects it asks for by name
   * (`client.get`). The least-privilege way to own Secrets.
   * @default []
   */
  readonly ownsByName?: readonly K[];
  /** Kinds the controller reads without watching (uncached `get`, `list`), e.g. a referenced Secret. @default [] */
  readonly reads?: readonly K[];
  /** Kinds the controller writes without owning them: `create`, `update`, `patch` (no `delete`). @default [] */
  readonly writes?: readonly K[];
  /** The controller writes `status` of its custom kinds (the CRDs in `watches`): `<plural>/status` get, update, patch. @default false */
  readonly status?: boolean;
  /**
   * The controller adds and removes finalizers on its custom kinds: `update`/`patch` on `<plural>`
   * and `update` on `<plural>/finalizers`.
   * @default false
   */
  readonly finalizers?: boolean;
  /**
   * The roles the controller binds (the `roleRef` of the RoleBindings and ClusterRoleBindings it writes, which it
   * also needs in `owns`, `ownsByName` or `writes`): `bind` on each, by name (`resourceNames`), in the watch scope.
   * Without it, binding a role needs every permission the role grants; `[]` says the controller binds only roles
   * whose permissions it holds (synth warns when the contract writes bindings and this is omitted).
   * @default - not declared
   */
  readonly binds?: readonly BoundRole[];
  /** The controller emits Events (`events.k8s.io` and core): `create`, `patch`. @default false */
  readonly events?: boolean;
  /** The controller takes a `coordination.k8s.io` Lease before reconciling (required when replicas > 1). @default false */
  readonly leaderElection?: boolean;
  /**
   * The controller runs as a shard ring (runtime `Manager({ sharding })`, docs/sharding.md): each replica holds a
   * member Lease in the operator's namespace and watches the ring's Leases: `get`, `list`, `watch`, `create`,
   * `update`, `delete` on leases there. `true` is `{ assignment: 'labels' }`: the assignment is also written on the
   * sharded objects as a label, which needs `patch` on the kinds in `watches`; `'hash'` and `'server'` write nothing
   * on them (see {@link ContractSharding}).
   * @default false
   */
  readonly sharding?: boolean | ContractSharding;
  /**
   * Custom kinds with several versions that the operator converts and migrates: its webhook serves their
   * CRD's conversion (the chart sets `spec.conversion` to the operator's webhook Service, the operator
   * injects the CA bundle), and the leader rewrites every stored object to the storage version and trims
   * `status.storedVersions`. RBAC, cluster-wide whatever the watch scope (storedVersions is cluster-wide):
   * `list`, `update` on the kind; `get`, `patch` on its CustomResourceDefinition and `update` on its
   * `/status`, both by name.
   * @default []
   */
  readonly conversion?: readonly K[];
  /**
   * The namespaces the controller watches: one informer per namespace in the runtime; a Role and
   * RoleBinding in each and `WATCH_NAMESPACE` in the chart; network peers are selected only there.
   * @default - cluster-wide (a ClusterRole; `WATCH_NAMESPACE` may still narrow the watch)
   */
  readonly watchNamespaces?: readonly string[];
  /**
   * Pods the controller connects to: NetworkPolicy egress to those pods on those ports, in the
   * watched namespaces (every namespace for a cluster-wide contract). Everything else stays denied.
   * @default [] (egress only to the apiserver and cluster DNS)
   */
  readonly connectsTo?: readonly NetworkPeerOf<K>[];
  /**
   * Admission webhooks the operator serves (see {@link WebhookOf}): the chart emits their
   * configurations, Service, certificates and RBAC; the runtime serves them.
   * @default []
   */
  readonly webhooks?: readonly WebhookOf<K>[];
}

/**
 * How a sharded controller's members get their share (runtime `ManagerShardingOptions.assignment`): `labels` writes
 * the assignment on the objects as a label (needs `patch` on the sharded kinds), `hash` has each member filter the
 * whole stream, `server` asks the apiserver for each member's hash ranges (Kubernetes 1.36+ with the gate
 * `ShardedListAndWatch`; detected at start, `hash` where it is not served).
 */
export type ShardAssignment = 'labels' | 'hash' | 'server';

/** The ways a shard ring can assign objects. */
export const SHARD_ASSIGNMENTS: readonly ShardAssignment[] = ['labels', 'hash', 'server'];

/**
 * How assignment `server` keyed by namespace cuts the hash space into buckets (runtime `ManagerShardingOptions.ranges`):
 * `even` slices, or `namespaces`, each bucket an equal count of the namespaces there are (`get`, `list`, `watch` on
 * namespaces, cluster-wide, unless the contract watches named namespaces).
 */
export type ShardRanges = 'even' | 'namespaces';

/** A contract's `sharding` clause in its long form. */
export interface ContractSharding {
  /** How members get their share: only `labels` writes on the sharded objects (a label patch). @default 'labels' */
  readonly assignment?: ShardAssignment;
  /**
   * With assignment `server`: `namespaces` cuts the hash space by the namespaces there are, so that members keyed by
   * namespace get equal counts of them whatever their names (see {@link ShardRanges}). @default 'even'
   */
  readonly ranges?: ShardRanges;
}

/** The ranges a contract's sharding clause declares (`even` unless it says `namespaces`). */
export function contractShardRanges(contract: { readonly sharding?: boolean | ContractSharding }): ShardRanges {
  const sharding = contract.sharding;
  return typeof sharding === 'object' && sharding.ranges === 'namespaces' ? 'namespaces' : 'even';
}

/** The assignment a contract grants (`labels` for `sharding: true`), undefined when it is not sharded. */
export function contractShardAssignment(contract: {
  readonly sharding?: boolean | ContractSharding;
}): ShardAssignment | undefined {
  const sharding = contract.sharding;
  if (!sharding) return undefined;
  return sharding === true ? 'labels' : (sharding.assignment ?? 'labels');
}

/** What is wrong with the `sharding` clause, naming the field and bad value (empty when nothing is). */
export function shardingProblems(sharding: unknown): string[] {
  if (sharding === undefined || typeof sharding === 'boolean') return [];
  if (typeof sharding !== 'object' || sharding === null) {
    return [`contract.sharding: must be true, false or { assignment, ranges }, got ${JSON.stringify(sharding)}`];
  }
  const { assignment, ranges } = sharding as ContractSharding;
  const problems: string[] = [];
  if (assignment !== undefined && !SHARD_ASSIGNMENTS.includes(assignment)) {
    problems.push(
      `contract.sharding.assignment: must be one of ${SHARD_ASSIGNMENTS.join(', ')}, got ${JSON.stringify(assignment)}`,
    );
  }
  if (ranges !== undefined && ranges !== 'even' && ranges !== 'namespaces') {
    problems.push(`contract.sharding.ranges: must be 'even' or 'namespaces', got ${JSON.stringify(ranges)}`);
  } else if (ranges === 'namespaces' && assignment !== 'server') {
    problems.push(
      `contract.sharding.ranges: 'namespaces' cuts the apiserver's hash ranges: needs assignment 'server', got ${JSON.stringify(assignment ?? 'labels')}`,
    );
  }
  return problems;
}

/** The kind clauses of a contract, in the order RBAC reports them. */
export const KIND_CLAUSES = ['watches', 'owns', 'ownsByName', 'reads', 'writes'] as const;

/** The RBAC verbs each kind clause grants (the chart's rules and the runtime's startup check both use these). */
export const CLAUSE_VERBS = {
  watches: ['get', 'list', 'watch'],
  owns: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
  ownsByName: ['get', 'create', 'update', 'patch', 'delete'],
  reads: ['get', 'list'],
  writes: ['create', 'update', 'patch'],
} as const;

/** The RBAC resource a bound role is, `clusterroles` or `roles`. */
export function boundRoleResource(role: BoundRole): 'clusterroles' | 'roles' {
  return role.kind === 'Role' ? 'roles' : 'clusterroles';
}

/** What is wrong with the `binds` clause, each naming its field and bad value (empty when nothing is). */
export function boundRoleProblems(binds: readonly BoundRole[] | undefined): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  (binds ?? []).forEach((b, i) => {
    const field = `contract.binds[${i}]`;
    if (b.kind !== 'ClusterRole' && b.kind !== 'Role') {
      out.push(`${field}.kind: must be 'ClusterRole' or 'Role', got ${JSON.stringify(b.kind)}`);
    }
    // role names are path segments: anything but '/' and '%', not '.' or '..' (rbac's ValidateRBACName)
    if (typeof b.name !== 'string' || b.name === '' || b.name === '.' || b.name === '..' || /[/%]/.test(b.name)) {
      out.push(`${field}.name: must be a role's name (no '/', '%'), got ${JSON.stringify(b.name)}`);
    }
    if (b.name === '*') out.push(`${field}.name: must name one role, got '*'`);
    const key = `${b.kind}/${b.name}`;
    if (seen.has(key)) out.push(`${field}: duplicate ${b.kind} '${b.name}'`);
    seen.add(key);
  });
  return out;
}

/** A TCP port number 1-65535. */
export function isPort(p: unknown): p is number {
  return typeof p === 'number' && Number.isInteger(p) && p >= 1 && p <= 65535;
}

/**
 * What is wrong with the `connectsTo` clause, each naming its field and bad value (empty when
 * nothing is). `isOwned(k)` says whether kind `k` is among the contract's `owns`; `describe(k)`
 * names it in a message.
 */
export function networkPeerProblems<K>(
  contract: ContractOf<K>,
  isOwned: (k: K) => boolean,
  describe: (k: K) => string,
): string[] {
  const out: string[] = [];
  (contract.connectsTo ?? []).forEach((peer, i) => {
    const field = `contract.connectsTo[${i}]`;
    if (!isOwned(peer.podsOf)) {
      out.push(
        `${field}.podsOf: '${describe(peer.podsOf)}' must be a kind in contract.owns (a controller connects only to pods it manages)`,
      );
    }
    const labels = Object.entries(peer.podLabels ?? {});
    if (labels.length === 0) {
      out.push(`${field}.podLabels: must name at least one label (an empty selector would allow every pod), got {}`);
    }
    for (const [k, v] of labels) {
      if (typeof v !== 'string') out.push(`${field}.podLabels.${k}: must be a string, got ${JSON.stringify(v)}`);
    }
    if (!peer.ports || peer.ports.length === 0) out.push(`${field}.ports: must name at least one port, got []`);
    (peer.ports ?? []).forEach((p, j) => {
      if (!isPort(p)) out.push(`${field}.ports[${j}]: must be a port number 1-65535, got ${JSON.stringify(p)}`);
    });
  });
  return out;
}

/**
 * What is wrong with the `webhooks` clause, each naming its field and bad value (empty when nothing
 * is). `id(k)` names a kind's group and kind, to find a kind declared twice for the same type.
 */
export function webhookProblems<K>(contract: ContractOf<K>, id: (k: K) => string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  (contract.webhooks ?? []).forEach((w, i) => {
    const field = `contract.webhooks[${i}]`;
    if (w.type !== 'validating' && w.type !== 'defaulting') {
      out.push(`${field}.type: must be 'validating' or 'defaulting', got ${JSON.stringify(w.type)}`);
    }
    const key = `${w.type} ${id(w.for)}`;
    if (seen.has(key)) {
      out.push(`${field}: a second ${w.type} webhook for '${id(w.for)}' (one handler per kind and type)`);
    }
    seen.add(key);
    if (w.operations !== undefined && w.operations.length === 0) {
      out.push(`${field}.operations: must name at least one operation, got []`);
    }
    (w.operations ?? []).forEach((op, j) => {
      if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(op)) {
        out.push(`${field}.operations[${j}]: must be CREATE, UPDATE, DELETE or CONNECT, got ${JSON.stringify(op)}`);
      }
    });
    if (w.failurePolicy !== undefined && w.failurePolicy !== 'Fail' && w.failurePolicy !== 'Ignore') {
      out.push(`${field}.failurePolicy: must be 'Fail' or 'Ignore', got ${JSON.stringify(w.failurePolicy)}`);
    }
    const t = w.timeoutSeconds;
    if (t !== undefined && (!Number.isInteger(t) || t < 1 || t > 30)) {
      out.push(
        `${field}.timeoutSeconds: must be an integer from 1 to 30 (the apiserver's limit), got ${JSON.stringify(t)}`,
      );
    }
    const names = new Set<string>();
    (w.matchConditions ?? []).forEach((c, j) => {
      if (!/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(c.name ?? '') || c.name.length > 63) {
        out.push(
          `${field}.matchConditions[${j}].name: must be a qualified name (63 characters at most), got ${JSON.stringify(c.name)}`,
        );
      }
      if (names.has(c.name)) out.push(`${field}.matchConditions[${j}].name: duplicate '${c.name}'`);
      names.add(c.name);
    });
    if ((w.matchConditions?.length ?? 0) > 64) {
      out.push(`${field}.matchConditions: at most 64 conditions, got ${w.matchConditions!.length}`);
    }
  });
  return out;
}
