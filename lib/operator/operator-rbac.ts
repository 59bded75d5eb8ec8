import { ApiObject, JsonPatch } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { ContractRules, mergeRules, RbacRule, rulesForContract, sortVerbs } from './contract-rules';
import { ControllerContract } from './controller-contract';
import { ACCEPTED_RISKS_ANNOTATION, RbacRisk } from './rbac-risk';
import { knownKinds } from '../apimachinery/kinds';
import { isDns1123Label } from '../apimachinery/names';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';
import { Problems } from '../synth-metadata/problems';
import { Warnings } from '../synth-metadata/warnings';

/**
 * A permission beyond the declared contract (the escape hatch). Synth reports every one as a
 * warning and lists it separately in the RBAC report.
 */
export interface AdditionalRbacRule {
  /** API groups, `''` for core. */
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
  /** @default - all objects */
  readonly resourceNames?: readonly string[];
  /** Why the controller needs it; shown in the report. */
  readonly reason: string;
  /**
   * Risks accepted for this rule (wildcards, escalate/bind/impersonate, list/watch on secrets):
   * the policy check then warns instead of failing.
   * @default []
   */
  readonly acceptRisks?: readonly RbacRisk[];
}

/** Props of `OperatorRbac`. */
export interface OperatorRbacProps {
  /** Prefix of every object name, e.g. `foo-operator`. */
  readonly name: string;
  /** Namespace the controller runs in (ServiceAccount, leader election Role). */
  readonly namespace: string;
  /** What the controller does; the rules are derived from it. */
  readonly contract: ControllerContract;
  /**
   * CRDs the operator manages; custom kinds in the contract are resolved against them.
   * @default []
   */
  readonly crds?: readonly ICustomResourceDefinition[];
  /**
   * Namespaces the controller watches: a Role + RoleBinding in each. Omitted: cluster-wide
   * (ClusterRole + ClusterRoleBinding).
   * @default - cluster-wide
   */
  readonly watchNamespaces?: readonly string[];
  /**
   * Permissions beyond the contract. Each is reported at synth.
   * @default []
   */
  readonly additionalRules?: readonly AdditionalRbacRule[];
  /**
   * The webhook certificate Secret in the operator's namespace: `get`, `update` on it by name (a Role there).
   * @default - no webhook
   */
  readonly webhookSecretName?: string;
  /**
   * Risks accepted for the contract's own rules (e.g. `SECRETS_READ` for a controller that watches Secrets).
   * @default []
   */
  readonly acceptRisks?: readonly RbacRisk[];
}

/** One Role or ClusterRole as granted, for the report. */
export interface RbacGrant {
  readonly kind: 'ClusterRole' | 'Role';
  readonly name: string;
  /** The Role's namespace. @default - none: a ClusterRole */
  readonly namespace?: string;
  /** What it is for, e.g. `contract` or `leader election`. */
  readonly purpose: string;
  readonly rules: readonly RbacRule[];
  /** Rules from `additionalRules` rather than the contract. */
  readonly beyondContract: boolean;
  readonly acceptedRisks: readonly RbacRisk[];
}

const isName = (value: string) => isDns1123Label(value).length === 0;

/**
 * Least-privilege RBAC for a controller, derived from its contract: a ServiceAccount with its token
 * mounted; a ClusterRole + ClusterRoleBinding when cluster-wide, or a Role + RoleBinding per
 * watched namespace; a leader-election Role in the operator's namespace; no wildcards.
 *
 * @see https://kubernetes.io/docs/concepts/security/rbac-good-practices/
 */
export class OperatorRbac extends Construct {
  /** The controller's identity (`<name>` in the operator namespace), token mounted. */
  public readonly serviceAccount: kplus.ServiceAccount;
  /** Every Role/ClusterRole created, with its rules and their reasons. */
  public get grants(): readonly RbacGrant[] {
    return this._grants;
  }
  private readonly _grants: RbacGrant[] = [];
  /** The rules derived from the contract. */
  public readonly contractRules: ContractRules;
  /** The namespace the controller runs in. */
  public readonly namespace: string;
  /** Watched namespaces, or undefined for cluster-wide. */
  public readonly watchNamespaces?: readonly string[];

  constructor(scope: Construct, id: string, props: OperatorRbacProps) {
    super(scope, id);
    if (!isName(props.name)) Problems.of(this).add(`name: must be a DNS label, got '${props.name}'`);
    if (!isName(props.namespace)) Problems.of(this).add(`namespace: must be a DNS label, got '${props.namespace}'`);
    const watchNamespaces = props.watchNamespaces === undefined ? undefined : [...props.watchNamespaces];
    if (watchNamespaces) {
      if (watchNamespaces.length === 0) {
        Problems.of(this).add('watchNamespaces: must name at least one namespace (omit it for cluster-wide), got []');
      }
      watchNamespaces.forEach((ns, i) => {
        if (!isName(ns)) Problems.of(this).add(`watchNamespaces[${i}]: must be a DNS label, got '${ns}'`);
        if (watchNamespaces.indexOf(ns) !== i) {
          Problems.of(this).add(`watchNamespaces[${i}]: duplicate namespace '${ns}'`);
        }
      });
    }
    this.namespace = props.namespace;
    this.watchNamespaces = watchNamespaces && [...new Set(watchNamespaces)];
    this.contractRules = Problems.of(this).recordErrors(
      () => rulesForContract(props.contract, { crds: props.crds ?? [], watchNamespaces: this.watchNamespaces }),
      { rules: [], leaderElectionRules: [], primaryKinds: [], clusterRules: [], conversionKinds: [] },
    );

    warnBindingsWithoutBinds(this, props.contract);

    this.serviceAccount = new kplus.ServiceAccount(this, 'ServiceAccount', {
      metadata: { name: props.name, namespace: props.namespace },
      automountToken: true, // cdk8s-plus turns it off; a controller talks to the apiserver
    });

    const grants: RbacGrant[] = [];
    const acceptContract = [...(props.acceptRisks ?? [])];
    grants.push(
      ...this.grantInScope(
        'Manager',
        `${props.name}-manager`,
        'contract',
        this.contractRules.rules,
        false,
        acceptContract,
      ),
    );

    const additional = props.additionalRules ?? [];
    if (additional.length > 0) {
      const extraRules = Problems.of(this).recordErrors(
        () =>
          mergeRules(
            additional.flatMap((r, i) => {
              const expanded = expandAdditional(r, i, this.watchNamespaces);
              rejectDuplicateOfContract(expanded, this.contractRules.rules, `additionalRules[${i}]`);
              return expanded;
            }),
          ),
        [],
      );
      const extraRisks = [...new Set(additional.flatMap((r) => r.acceptRisks ?? []))];
      grants.push(
        ...this.grantInScope(
          'Additional',
          `${props.name}-additional`,
          'escape hatch (additionalRules)',
          extraRules,
          true,
          extraRisks,
        ),
      );
      additional.forEach((r, i) =>
        Warnings.of(this).add(
          `additionalRules[${i}] grants beyond the contract: ${sortVerbs(r.verbs).join(',')} on ${r.apiGroups.map((g) => g || 'core').join(',')}/${r.resources.join(',')} — ${r.reason}`,
        ),
      );
    }

    if (props.webhookSecretName) {
      grants.push(
        this.role(
          'Webhook',
          `${props.name}-webhook`,
          props.namespace,
          'webhook certificates (its own Secret, by name)',
          [
            {
              apiGroup: '',
              resource: 'secrets',
              verbs: ['get', 'update'],
              resourceNames: [props.webhookSecretName],
              reasons: [
                'webhook serving certificate and CA: every replica reads it, the leader rotates it (created empty by the chart)',
              ],
            },
          ],
          false,
          [],
        ),
      );
    }
    if (this.contractRules.clusterRules.length > 0) {
      grants.push(
        this.clusterRole(
          'Conversion',
          `${props.name}-conversion`,
          'conversion and storage version migration (cluster-wide)',
          this.contractRules.clusterRules,
        ),
      );
    }

    if (this.contractRules.leaderElectionRules.length > 0) {
      grants.push(
        this.role(
          'LeaderElection',
          `${props.name}-leader-election`,
          props.namespace,
          props.contract.sharding
            ? props.contract.leaderElection
              ? 'leader election and shard ring membership'
              : 'shard ring membership'
            : 'leader election',
          this.contractRules.leaderElectionRules,
          false,
          [],
        ),
      );
    }
    this._grants.push(...grants);
  }

  /**
   * What admission webhooks need beyond the shared webhook Secret (`webhookSecretName`), by name only: `get`/`patch`
   * of the operator's own webhook configurations to inject the CA bundle (self-managed only), and `get` of the
   * watched Namespaces when a handler reads them. Nothing cluster-wide on Secrets, no `create`.
   */
  grantWebhooks(
    configurations: readonly { readonly kind: string; readonly name: string }[],
    selfManaged: boolean,
    readsNamespaces: boolean,
  ): void {
    if (readsNamespaces) {
      // Namespaces are cluster-scoped: a ClusterRole, limited by name to the watched namespaces when there are some.
      const names = this.watchNamespaces ?? [undefined];
      const rules: RbacRule[] = names.map((n) => ({
        apiGroup: '',
        resource: 'namespaces',
        verbs: ['get'],
        ...(n ? { resourceNames: [n] } : {}),
        reasons: ["webhooks: a handler reads the request's Namespace (contract.webhooks[].readsNamespace)"],
      }));
      const nsRole = `${this.serviceAccount.name}-webhook-namespaces`;
      const role = new kplus.ClusterRole(this, 'WebhookNamespacesClusterRole', { metadata: { name: nsRole } });
      for (const r of rules) role.allow([...r.verbs], endpoint(r));
      const binding = new kplus.ClusterRoleBinding(this, 'WebhookNamespacesClusterRoleBinding', {
        metadata: { name: nsRole },
        role,
      });
      binding.addSubjects(this.serviceAccount);
      dropEmptyResourceNames(role, rules);
      this._grants.push({
        kind: 'ClusterRole',
        name: nsRole,
        purpose: 'webhooks reading namespaces',
        rules,
        beyondContract: false,
        acceptedRisks: [],
      });
    }
    if (!selfManaged || configurations.length === 0) return;
    const rules: RbacRule[] = configurations.map((c) => ({
      apiGroup: 'admissionregistration.k8s.io',
      resource:
        c.kind === 'ValidatingWebhookConfiguration'
          ? 'validatingwebhookconfigurations'
          : 'mutatingwebhookconfigurations',
      verbs: ['get', 'patch'],
      resourceNames: [c.name],
      reasons: ['webhook certificates: the leader injects its CA bundle into its own webhook configuration'],
    }));
    const name = `${this.serviceAccount.name}-webhook-ca-injection`;
    const role = new kplus.ClusterRole(this, 'WebhookCaInjectionClusterRole', { metadata: { name } });
    for (const r of rules) role.allow([...r.verbs], endpoint(r));
    const binding = new kplus.ClusterRoleBinding(this, 'WebhookCaInjectionClusterRoleBinding', {
      metadata: { name },
      role,
    });
    binding.addSubjects(this.serviceAccount);
    this._grants.push({
      kind: 'ClusterRole',
      name,
      purpose: 'webhook CA bundle injection',
      rules,
      beyondContract: false,
      acceptedRisks: [],
    });
  }

  private grantInScope(
    id: string,
    name: string,
    purpose: string,
    rules: readonly RbacRule[],
    beyond: boolean,
    risks: RbacRisk[],
  ): RbacGrant[] {
    if (this.watchNamespaces) {
      return this.watchNamespaces.map((ns) => this.role(`${id}-${ns}`, name, ns, purpose, rules, beyond, risks));
    }
    const role = new kplus.ClusterRole(this, `${id}ClusterRole`, {
      metadata: { name, annotations: riskAnnotation(risks) },
    });
    for (const r of rules) role.allow([...r.verbs], endpoint(r));
    const binding = new kplus.ClusterRoleBinding(this, `${id}ClusterRoleBinding`, { metadata: { name }, role });
    binding.addSubjects(this.serviceAccount);
    dropEmptyResourceNames(role, rules);
    return [{ kind: 'ClusterRole', name, purpose, rules, beyondContract: beyond, acceptedRisks: risks }];
  }

  private clusterRole(id: string, name: string, purpose: string, rules: readonly RbacRule[]): RbacGrant {
    const role = new kplus.ClusterRole(this, `${id}ClusterRole`, { metadata: { name } });
    for (const r of rules) role.allow([...r.verbs], endpoint(r));
    const binding = new kplus.ClusterRoleBinding(this, `${id}ClusterRoleBinding`, { metadata: { name }, role });
    binding.addSubjects(this.serviceAccount);
    dropEmptyResourceNames(role, rules);
    return { kind: 'ClusterRole', name, purpose, rules, beyondContract: false, acceptedRisks: [] };
  }

  private role(
    id: string,
    name: string,
    namespace: string,
    purpose: string,
    rules: readonly RbacRule[],
    beyond: boolean,
    risks: RbacRisk[],
  ): RbacGrant {
    const role = new kplus.Role(this, `${id}Role`, {
      metadata: { name, namespace, annotations: riskAnnotation(risks) },
    });
    for (const r of rules) role.allow([...r.verbs], endpoint(r));
    const binding = new kplus.RoleBinding(this, `${id}RoleBinding`, { metadata: { name, namespace }, role });
    binding.addSubjects(this.serviceAccount);
    return { kind: 'Role', name, namespace, purpose, rules, beyondContract: beyond, acceptedRisks: risks };
  }
}

/**
 * A contract that writes RoleBindings or ClusterRoleBindings without `binds`: every binding then needs the writer to
 * hold all the permissions of the role it refers to, which a least-privilege operator does not (the built-in `admin`
 * alone grants most of the API): the apiserver answers 403 at run time. `binds: []` says it binds only roles it holds.
 */
function warnBindingsWithoutBinds(scope: Construct, contract: ControllerContract): void {
  if (contract.binds !== undefined) return;
  for (const clause of ['owns', 'ownsByName', 'writes'] as const) {
    (contract[clause] ?? []).forEach((sel, i) => {
      const kind =
        'kind' in sel && 'apiVersion' in sel && (sel.apiVersion as string).startsWith('rbac.authorization.k8s.io/')
          ? sel.kind
          : undefined;
      if (kind !== 'RoleBinding' && kind !== 'ClusterRoleBinding') return;
      Warnings.of(scope).add(
        `contract.${clause}[${i}]: the operator writes ${kind}s but contract.binds names no role: binding a role needs every ` +
          'permission the role grants, else the apiserver answers 403 "attempting to grant RBAC permissions not currently held"; name the roles ' +
          'it binds in contract.binds (grants bind on each, by name), or set binds: [] if it binds only roles whose permissions it holds',
      );
    });
  }
}

/** An additional rule the contract already grants in full is a mistake (a duplicate rule). */
function rejectDuplicateOfContract(extra: readonly RbacRule[], contract: readonly RbacRule[], field: string) {
  for (const r of extra) {
    const same = contract.find(
      (c) => c.apiGroup === r.apiGroup && c.resource === r.resource && !c.resourceNames?.length,
    );
    if (same && r.verbs.every((v) => same.verbs.includes(v))) {
      throw new Error(
        `${field}: duplicates a contract rule: ${r.apiGroup || 'core'}/${r.resource} already has ${same.verbs.join(',')} (${same.reasons.join('; ')}); remove it`,
      );
    }
  }
}

function riskAnnotation(risks: readonly RbacRisk[]): Record<string, string> | undefined {
  return risks.length > 0 ? { [ACCEPTED_RISKS_ANNOTATION]: [...risks].sort().join(',') } : undefined;
}

/** An RBAC target for cdk8s-plus (works for both Role and ClusterRole). */
function endpoint(r: RbacRule): kplus.IApiResource & kplus.IApiEndpoint {
  if ((r.resourceNames?.length ?? 0) > 1) {
    throw new Error(`internal: expected at most one resourceName per rule, got ${JSON.stringify(r.resourceNames)}`);
  }
  const resource: kplus.IApiResource = {
    apiGroup: r.apiGroup,
    resourceType: r.resource,
    resourceName: r.resourceNames?.[0],
  };
  return { ...resource, asApiResource: () => resource, asNonApiResource: () => undefined };
}

function expandAdditional(
  r: AdditionalRbacRule,
  i: number,
  watchNamespaces: readonly string[] | undefined,
): RbacRule[] {
  const field = `additionalRules[${i}]`;
  if (!r.reason?.trim()) throw new Error(`${field}.reason: must say why the controller needs it, got '${r.reason}'`);
  for (const f of ['apiGroups', 'resources', 'verbs'] as const) {
    if (!r[f] || r[f].length === 0) throw new Error(`${field}.${f}: must not be empty, got ${JSON.stringify(r[f])}`);
  }
  if (watchNamespaces) {
    // A Role cannot grant cluster-scoped resources: the rule would be silently useless.
    for (const g of r.apiGroups) {
      r.resources.forEach((res, j) => {
        const known = knownKinds().find((k) => k.group === g && k.plural === res.split('/')[0]);
        if (known && !known.namespaced) {
          throw new Error(
            `${field}.resources[${j}]: '${res}' is cluster-scoped, but the watch scope is namespaced; a Role cannot grant it`,
          );
        }
      });
    }
  }
  const names = r.resourceNames?.length ? r.resourceNames : [undefined];
  return r.apiGroups.flatMap((g) =>
    r.resources.flatMap((res) =>
      names.map((n) => ({
        apiGroup: g,
        resource: res,
        verbs: [...r.verbs],
        resourceNames: n === undefined ? undefined : [n],
        reasons: [r.reason],
      })),
    ),
  );
}

// cdk8s-plus writes `resourceNames: []` on ClusterRole rules; drop it (escape hatch) so the output reads like a Role's.
function dropEmptyResourceNames(role: kplus.ClusterRole, rules: readonly RbacRule[]) {
  rules.forEach((r, i) => {
    if (!r.resourceNames?.length) ApiObject.of(role).addJsonPatch(JsonPatch.remove(`/rules/${i}/resourceNames`));
  });
}
