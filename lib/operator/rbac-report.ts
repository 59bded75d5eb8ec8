import { PodEgress } from './operator-network-policy';
import { RbacGrant } from './operator-rbac';
import { SHARD_LABEL_WEBHOOK_TIMEOUT_SECONDS } from './operator-webhooks';
import { ShardAssignment, ShardRanges } from '../apimachinery/controller-contract';
import { shardLabelWebhookPath } from '../apimachinery/shard-label';

/** Input of `renderRbacReport`. @internal */
export interface RbacReportInput {
  readonly operatorName: string;
  readonly serviceAccount: { readonly name: string; readonly namespace: string };
  /** Watched namespaces, undefined for cluster-wide. */
  readonly watchNamespaces?: readonly string[];
  readonly grants: readonly RbacGrant[];
  /** Egress to pods from the contract's `connectsTo`; undefined when the operator has no NetworkPolicy. */
  readonly podEgress?: readonly PodEgress[];
  /** How the work is split when the controller is sharded. */
  readonly sharding?: {
    readonly ring: string;
    readonly replicas: number;
    readonly key: 'uid' | 'namespace';
    readonly assignment: ShardAssignment;
    /** How assignment `server` cuts the hash space (`contract.sharding.ranges`). @default 'even' */
    readonly ranges?: ShardRanges;
    /** The labelling webhook, when the chart emits it: its MutatingWebhookConfiguration and entries. */
    readonly labelWebhook?: { readonly configuration: string; readonly webhooks: readonly string[] };
  };
}

/** How each assignment gives members their share, and what it writes on the sharded objects (the RBAC it needs). */
const SHARD_ASSIGNMENT_TEXT: Record<ShardAssignment, (ring: string) => string> = {
  labels: (ring) =>
    `The assignment is written on the sharded objects as the label \`shard.cdk8s-operator.io/${ring}=<member>\` ` +
    "(one patch per object created by others and per object that moves; the objects a member creates carry it from the start), and each member's watches select its label.",
  hash: () =>
    'Assignment `hash`: nothing is written on the sharded objects (no `patch` for it): each member receives the whole stream of the sharded kinds and drops what is not its share.',
  server: () =>
    'Assignment `server`: nothing is written on the sharded objects (no `patch` for it): each member asks the apiserver for its hash ranges (the shard selector, Kubernetes 1.36+ with the feature gate `ShardedListAndWatch`); where the apiserver does not apply it, each member receives the whole stream and drops what is not its share (the log says so at start, and the metric `controller_runtime_shard_server_selection` is 0).',
};

/**
 * A readable account of every RBAC rule an operator gets and why: one table per Role/ClusterRole,
 * rules beyond the contract marked, the NetworkPolicy's egress to pods, and `kubectl auth can-i` lines
 * to check it on a cluster.
 *
 * @internal
 */
export function renderRbacReport(input: RbacReportInput): string {
  const sa = `system:serviceaccount:${input.serviceAccount.namespace}:${input.serviceAccount.name}`;
  const lines: string[] = [
    `# RBAC report: ${input.operatorName}`,
    '',
    `Identity: ServiceAccount \`${input.serviceAccount.namespace}/${input.serviceAccount.name}\` (\`${sa}\`), token mounted.`,
    `Watch scope: ${input.watchNamespaces ? `namespaces ${input.watchNamespaces.map((n) => `\`${n}\``).join(', ')} (a Role + RoleBinding in each)` : 'cluster-wide (ClusterRole + ClusterRoleBinding)'}.`,
    '',
    'Every rule below is derived from the controller contract unless marked **beyond the contract**.',
    '',
  ];
  const binds = input.grants.flatMap((g) => g.rules.filter((r) => r.verbs.includes('bind')).map((r) => ({ g, r })));
  if (binds.length > 0) {
    lines.push(
      '**Roles it binds** (`contract.binds`): the apiserver lets a RoleBinding or ClusterRoleBinding refer only to a role ' +
        'whose every permission the writer holds, or on which it has `bind`. The operator has `bind` on exactly these roles, by name, ' +
        'and holds none of their permissions: it can give them to others (the subjects of the bindings it writes), not use them, ' +
        'and cannot bind any other role it does not hold (403 "attempting to grant RBAC permissions not currently held").',
      '',
    );
    for (const { g, r } of binds) {
      const where = g.kind === 'Role' ? `Role \`${g.namespace}/${g.name}\`` : `ClusterRole \`${g.name}\``;
      for (const n of r.resourceNames ?? []) {
        lines.push(`- ${r.resource === 'roles' ? 'Role' : 'ClusterRole'} \`${n}\` (granted by ${where})`);
      }
    }
    lines.push('');
  }
  for (const g of input.grants) {
    const where = g.kind === 'Role' ? `Role \`${g.namespace}/${g.name}\`` : `ClusterRole \`${g.name}\``;
    const binding = g.kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding';
    lines.push(`## ${where} — ${g.purpose}${g.beyondContract ? ' (**beyond the contract**)' : ''}`, '');
    lines.push(`Bound to the ServiceAccount by ${binding} \`${g.name}\`.`);
    if (g.acceptedRisks.length > 0) lines.push(`Accepted risks: ${g.acceptedRisks.join(', ')}.`);
    lines.push('', '| API group | resource | names | verbs | why |', '|---|---|---|---|---|');
    for (const r of g.rules) {
      lines.push(
        `| ${r.apiGroup || '(core)'} | ${r.resource} | ${r.resourceNames?.join(', ') ?? 'all'} | ${r.verbs.join(', ')} | ${r.reasons.join('; ')} |`,
      );
    }
    lines.push('');
  }
  if (input.sharding) {
    const { ring, replicas, key, assignment, ranges, labelWebhook } = input.sharding;
    lines.push('## Sharding: how the work is split', '');
    lines.push(
      `${replicas} replicas form the shard ring \`${ring}\`: each holds a member Lease \`${ring}-<member>\` in \`${input.serviceAccount.namespace}\` ` +
        `and reconciles, and caches, only the objects rendezvous hashing of ${key === 'uid' ? "their UID (an owned object: its controller owner's UID)" : 'their namespace'} ` +
        `assigns to it: about 1/${replicas} of them${key === 'namespace' ? ' (of the namespaces: one busy namespace stays on one member)' : ''}. ` +
        'A member joining or leaving moves only its share; an object moves only after its old owner acknowledged the new ring. ' +
        SHARD_ASSIGNMENT_TEXT[assignment](ring) +
        (ranges === 'namespaces'
          ? " The hash ranges follow the namespaces (`contract.sharding.ranges: 'namespaces'`): the ring's first member cuts them so that every member gets an equal count of " +
            (input.watchNamespaces
              ? 'the watched namespaces'
              : "the cluster's namespaces (it reads them: `get`, `list`, `watch` on namespaces, above)") +
            ', and cuts them anew when a member is off its even share by more than a fifth (an Event `ShardRangesRebalanced`); a new cut moves objects as a ring change does.'
          : '') +
        ' A PodDisruptionBudget lets one member down at a time.',
      '',
    );
    if (labelWebhook) {
      lines.push(
        `The labelling webhook writes the label in the create request instead: MutatingWebhookConfiguration \`${labelWebhook.configuration}\` ` +
          `(${labelWebhook.webhooks.map((w) => `\`${w}\``).join(', ')}) sends CREATE of objects without the label to every member at ` +
          `\`${shardLabelWebhookPath(ring)}\`, through the operator's webhook Service, with the certificates (and their RBAC, above) of its other webhooks. ` +
          `\`failurePolicy: Ignore\`, \`timeoutSeconds: ${SHARD_LABEL_WEBHOOK_TIMEOUT_SECONDS}\`: a create never waits on the ring longer, and what the webhook did not label the assigner patches` +
          (key === 'uid'
            ? '. With `key: uid` only objects created with a controller owner are sent to it (a new object has no UID at admission).'
            : '.'),
        '',
      );
    }
  }
  if (input.podEgress) {
    lines.push('## Network egress (NetworkPolicy)', '');
    lines.push(
      'Besides the apiserver and cluster DNS, the controller may open connections only to these pods (`contract.connectsTo`):',
      '',
    );
    if (input.podEgress.length === 0) {
      lines.push('none.');
    } else {
      lines.push('| pods labelled | TCP ports | namespaces |', '|---|---|---|');
      for (const e of input.podEgress) {
        const labels = Object.entries(e.labels)
          .map(([k, v]) => `\`${k}=${v}\``)
          .join(', ');
        lines.push(
          `| ${labels} | ${e.ports.join(', ')} | ${e.namespaces ? e.namespaces.map((n) => `\`${n}\``).join(', ') : 'all'} |`,
        );
      }
    }
    lines.push('');
  }
  lines.push('## Check on a cluster', '', '```sh');
  for (const g of input.grants) {
    const ns = g.namespace ? ` -n ${g.namespace}` : ' -A';
    for (const r of g.rules) {
      const res = r.apiGroup ? `${r.resource.split('/')[0]}.${r.apiGroup}` : r.resource.split('/')[0];
      const sub = r.resource.includes('/') ? ` --subresource=${r.resource.split('/')[1]}` : '';
      const named = r.resourceNames?.length ? r.resourceNames.map((n) => `${res}/${n}`) : [res];
      for (const v of r.verbs) {
        for (const target of named) lines.push(`kubectl auth can-i ${v} ${target}${sub}${ns} --as=${sa}   # yes`);
      }
    }
  }
  lines.push(`kubectl auth can-i list secrets -A --as=${sa}   # no, unless a rule above grants it`);
  lines.push('```', '');
  return lines.join('\n');
}
