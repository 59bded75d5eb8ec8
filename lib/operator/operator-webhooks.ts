import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { ControllerContract, KindSelector, ResolvedKind, resolveKind } from './controller-contract';
import { matchConditionProblems } from './webhook-match-conditions';
import { LabelSelectorOf, WebhookOf, webhookProblems } from '../apimachinery/controller-contract';
import { DEFAULT_KUBERNETES_VERSION } from '../apimachinery/kubernetes-versions';
import { shardLabel, shardLabelWebhookPath } from '../apimachinery/shard-label';
import { webhookPath } from '../apimachinery/webhook-path';
import {
  markConstructChecked,
  OPERATOR_WEBHOOK_FIELDS,
} from '../apiserver/builtin-validation/admission-construct-checked';
import { ICustomResourceDefinition, isCustomResourceDefinitionLike } from '../crd/icustom-resource-definition';
import { Problems } from '../synth-metadata/problems';
import { targetVersions } from '../synth-metadata/target-versions';

/** Who issues the webhook serving certificate. */
export type WebhookCertificates = 'self-managed' | 'cert-manager';

/** How the operator's webhooks are served (what they are is declared in `contract.webhooks`). */
export interface OperatorWebhookOptions {
  /**
   * `self-managed`: the operator's leader creates a CA and serving certificate in a Secret the chart
   * creates empty, injects the CA bundle into its own webhook configurations and rotates both with
   * overlap — no cert-manager needed. `cert-manager`: an Issuer chain and a Certificate (cert-manager
   * must be installed), the CA injected by cert-manager's cainjector (`cert-manager.io/inject-ca-from`).
   * @default 'self-managed'
   */
  readonly certificates?: WebhookCertificates;
  /** Container port of the webhook server (the Service listens on 443). @default 9443 */
  readonly port?: number;
  /** Self-managed CA validity, a duration (`8760h`). @default - 365 days */
  readonly caValidity?: string;
  /** Self-managed serving certificate validity (`2160h`). @default - 90 days */
  readonly certificateValidity?: string;
}

/** Props of `OperatorWebhooks`. */
export interface OperatorWebhooksProps extends OperatorWebhookOptions {
  readonly name: string;
  readonly namespace: string;
  readonly contract: ControllerContract;
  readonly crds: readonly ICustomResourceDefinition[];
  readonly watchNamespaces?: readonly string[];
  readonly replicas: number;
  /** The operator's webhook Service (`OperatorWebhook`, shared with conversion). */
  readonly serviceName: string;
  /** The operator's webhook certificate Secret (`OperatorWebhook`, shared with conversion). */
  readonly secretName: string;
  /**
   * The shard ring's labelling webhook (`Operator` `sharding.labelWebhook`): entries of the MutatingWebhookConfiguration
   * for CREATE of `kinds`, served at `/label-shard-<ring>`.
   * @default - none
   */
  readonly shardLabel?: ShardLabelWebhook;
}

/** What the shard ring's labelling webhook intercepts. */
export interface ShardLabelWebhook {
  readonly ring: string;
  readonly key: 'uid' | 'namespace';
  /** The sharded kinds (the contract's `watches`: those it may label). */
  readonly kinds: readonly KindSelector[];
}

/**
 * How long a create waits for the labelling webhook. Its answer is computed in memory (rendezvous hashing over the
 * ring's view, microseconds); a member that does not answer within this is overloaded or gone, and the create goes
 * on unlabelled (`failurePolicy: Ignore`): the assigner then labels it with one patch, as without the webhook. The
 * timeout is the most a create can be slowed by the ring, so it is short.
 */
export const SHARD_LABEL_WEBHOOK_TIMEOUT_SECONDS = 2;

/** A created object with a controller owner: only those have a shard key at admission with `key: 'uid'`. */
const HAS_CONTROLLER_OWNER =
  'has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r, has(r.controller) && r.controller)';

/** Everything the webhooks' objects are named after, for RBAC and the Deployment. */
export interface WebhookWiring {
  readonly configurations: readonly {
    readonly kind: 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';
    readonly name: string;
  }[];
  readonly env: Readonly<Record<string, string>>;
}

const SYSTEM_NAMESPACES = ['kube-system'];
const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * The operator's admission webhooks as declared in `contract.webhooks`: a Validating- and/or
 * MutatingWebhookConfiguration (admissionregistration.k8s.io/v1), the webhook Service (443 → the
 * server's port), and the certificates — an empty Secret the operator fills itself (self-managed), or
 * cert-manager's Issuer chain and Certificate. The configurations never render `caBundle`: the
 * operator (or cert-manager's cainjector) owns that field, and a manifest that renders it would fight
 * its owner under GitOps.
 *
 * Every webhook excludes the operator's own namespace and kube-system (`namespaceSelector`), so an
 * operator that is down never blocks its own pods, leases or recovery. Synth refuses: a watched
 * namespace that is the operator's own (its webhooks would intercept the operator's own pods and
 * leases, or skip that namespace); `failurePolicy: Fail` on a single replica (no PodDisruptionBudget:
 * every drain or rollout fails those writes); a timeout outside 1-30 s; matchConditions that do not
 * compile on a version of the app's range (each compiles with its own CEL environment: `quantity()` or
 * `x.?f` fail on 1.28). matchConditions need Kubernetes 1.30 (GA), or 1.28-1.29 where they are beta and on by
 * default (measured: 1.28 keeps them).
 */
export class OperatorWebhooks extends Construct {
  public readonly wiring: WebhookWiring;
  public readonly validatingConfiguration?: ApiObject;
  public readonly mutatingConfiguration?: ApiObject;
  /** The names of the labelling webhook's entries in the MutatingWebhookConfiguration (`shardLabel`), one per kind. */
  public readonly shardLabelWebhooks: readonly string[];

  constructor(scope: Construct, id: string, props: OperatorWebhooksProps) {
    super(scope, id);
    const problems = Problems.of(this);
    const webhooks = props.contract.webhooks ?? [];
    const port = props.port ?? 9443;
    if (!Number.isInteger(port) || port < 1024 || port > 65535) {
      problems.add(`webhooks.port: must be an unprivileged port (1024-65535), got ${port}`);
    }
    const certificates = props.certificates ?? 'self-managed';
    if (certificates !== 'self-managed' && certificates !== 'cert-manager') {
      problems.add(`webhooks.certificates: must be 'self-managed' or 'cert-manager', got '${certificates}'`);
    }
    const { serviceName, secretName } = props;
    // matchConditions compile in the CEL environment of each version of the app's range
    const versions = targetVersions(this) ?? [DEFAULT_KUBERNETES_VERSION];

    const resolved = webhooks.map((w, i) =>
      problems.recordErrors(() => resolveKind(w.for, props.crds, `contract.webhooks[${i}].for`), undefined),
    );
    webhookProblems(props.contract, (k: KindSelector) => {
      const r = resolved[webhooks.findIndex((w) => w.for === k)];
      return r ? `${r.group}/${r.kind}` : JSON.stringify(k);
    }).forEach((p) => problems.add(p));
    // (the labelling webhook alone is harmless there: the assigner labels what it does not)
    if (webhooks.length > 0 && props.watchNamespaces?.includes(props.namespace)) {
      problems.add(
        `watchNamespaces: includes the operator's own namespace '${props.namespace}' while it serves webhooks: without excluding it ` +
          "the webhooks would intercept the operator's own pods and leases and could block its recovery, and with it excluded the kinds " +
          `they admit would go unchecked there; run the operator in a namespace of its own (namespace: '${props.name}-system')`,
      );
    }
    webhooks.forEach((w, i) => {
      const field = `contract.webhooks[${i}]`;
      if ((w.failurePolicy ?? 'Fail') === 'Fail' && props.replicas < 2) {
        problems.add(
          `${field}.failurePolicy: 'Fail' with replicas: ${props.replicas} has no PodDisruptionBudget to keep a webhook pod up: every ` +
            `node drain or rollout fails the ${resolved[i]?.kind ?? 'kind'} writes it intercepts; set replicas: 2 (a PodDisruptionBudget comes with them) or failurePolicy: 'Ignore'`,
        );
      }
      matchConditionProblems(w.matchConditions ?? [], `${field}.matchConditions`, versions).forEach((p) =>
        problems.add(p),
      );
    });

    const annotations =
      certificates === 'cert-manager'
        ? { 'cert-manager.io/inject-ca-from': `${props.namespace}/${secretName}` }
        : undefined;
    const entry = (w: WebhookOf<KindSelector>, kind: ResolvedKind) => ({
      name: `${w.type === 'validating' ? 'validate' : 'default'}.${kind.plural}.${kind.group || 'core'}`,
      // No caBundle: the operator (or cert-manager's cainjector) owns it.
      clientConfig: {
        service: {
          name: serviceName,
          namespace: props.namespace,
          path: webhookPath(w.type, apiVersionOf(w.for, kind), kind.kind),
          port: 443,
        },
      },
      rules: [
        {
          apiGroups: [kind.group],
          apiVersions: [versionOf(w.for, kind)],
          operations: [...(w.operations ?? ['CREATE', 'UPDATE'])],
          resources: [kind.plural],
          scope: kind.namespaced ? 'Namespaced' : 'Cluster',
        },
      ],
      matchPolicy: 'Equivalent',
      namespaceSelector: excludingSystem(props.namespace, w.namespaceSelector, props.watchNamespaces),
      ...(w.objectSelector ? { objectSelector: selector(w.objectSelector) } : {}),
      ...(w.matchConditions?.length
        ? { matchConditions: w.matchConditions.map((c) => ({ name: c.name, expression: c.expression })) }
        : {}),
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      failurePolicy: w.failurePolicy ?? 'Fail',
      timeoutSeconds: w.timeoutSeconds ?? 10,
      ...(w.type === 'defaulting' ? { reinvocationPolicy: 'IfNeeded' } : {}),
    });
    const shardLabelEntries = props.shardLabel ? this.shardLabelEntries(props, props.shardLabel, versions) : [];
    this.shardLabelWebhooks = shardLabelEntries.map((e) => e.name);
    const configurations: WebhookWiring['configurations'][number][] = [];
    const emit = (type: 'validating' | 'defaulting') => {
      const entries = [
        ...webhooks.flatMap((w, i) => (w.type === type && resolved[i] ? [entry(w, resolved[i]!)] : [])),
        ...(type === 'defaulting' ? shardLabelEntries : []),
      ];
      if (entries.length === 0) return undefined;
      const kind =
        type === 'validating' ? ('ValidatingWebhookConfiguration' as const) : ('MutatingWebhookConfiguration' as const);
      configurations.push({ kind, name: props.name });
      const configuration = new ApiObject(this, kind, {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind,
        metadata: {
          name: props.name,
          labels: { 'app.kubernetes.io/name': props.name },
          ...(annotations ? { annotations } : {}),
        },
        webhooks: entries,
      } as any);
      // the webhooks' timeout, failure policy, operations and matchConditions are reported in the contract's words
      markConstructChecked(configuration, OPERATOR_WEBHOOK_FIELDS);
      return configuration;
    };
    this.validatingConfiguration = emit('validating');
    this.mutatingConfiguration = emit('defaulting');

    // WEBHOOK_SERVICE, WEBHOOK_CERT_SECRET and the port come with the shared `OperatorWebhook` (Service, empty Secret).
    const env: Record<string, string> = { WEBHOOK_CERTIFICATES: certificates };
    if (certificates === 'self-managed') {
      env.WEBHOOK_CA_INJECT = configurations.map((c) => `${c.kind}/${c.name}`).join(',');
      if (props.caValidity) env.WEBHOOK_CA_VALIDITY = props.caValidity;
      if (props.certificateValidity) env.WEBHOOK_CERT_VALIDITY = props.certificateValidity;
    } else {
      this.certManagerObjects(props, serviceName, secretName);
    }
    this.wiring = { configurations, env };
  }

  /**
   * The labelling webhook's entries, one per sharded kind (kubernetes-controller-sharding's sharder webhook): CREATE
   * only (an object keeps its label; moves are the members' patches), any version (the handler reads and writes only
   * metadata), not called for objects that already carry the ring's label (the members' own creates) nor, with
   * `key: 'uid'`, for objects without a controller owner (their UID, the key, is not assigned yet at admission).
   * `failurePolicy: Ignore`: the label is an optimisation the assigner makes anyway; no create waits on the ring
   * beyond {@link SHARD_LABEL_WEBHOOK_TIMEOUT_SECONDS}.
   */
  private shardLabelEntries(
    props: OperatorWebhooksProps,
    hook: ShardLabelWebhook,
    versions: Parameters<typeof matchConditionProblems>[2],
  ): { readonly name: string }[] {
    const conditions = hook.key === 'uid' ? [{ name: 'has-controller-owner', expression: HAS_CONTROLLER_OWNER }] : [];
    matchConditionProblems(conditions, 'sharding.labelWebhook (matchConditions)', versions).forEach((p) =>
      Problems.of(this).add(p),
    );
    return hook.kinds.flatMap((k, i) => {
      let kind: ResolvedKind;
      try {
        kind = resolveKind(k, props.crds, `contract.watches[${i}]`);
      } catch {
        return []; // the RBAC reports the unresolved kind
      }
      return [
        {
          name: `label-shard.${kind.plural}.${kind.group || 'core'}`,
          // No caBundle: the operator (or cert-manager's cainjector) owns it, as for the other webhooks.
          clientConfig: {
            service: {
              name: props.serviceName,
              namespace: props.namespace,
              path: shardLabelWebhookPath(hook.ring),
              port: 443,
            },
          },
          rules: [
            {
              apiGroups: [kind.group],
              apiVersions: ['*'],
              operations: ['CREATE'],
              resources: [kind.plural],
              scope: kind.namespaced ? 'Namespaced' : 'Cluster',
            },
          ],
          matchPolicy: 'Equivalent',
          namespaceSelector: excludingSystem(props.namespace, undefined, props.watchNamespaces),
          objectSelector: { matchExpressions: [{ key: shardLabel(hook.ring), operator: 'DoesNotExist' }] },
          ...(conditions.length ? { matchConditions: conditions } : {}),
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Ignore',
          timeoutSeconds: SHARD_LABEL_WEBHOOK_TIMEOUT_SECONDS,
          reinvocationPolicy: 'Never',
        },
      ];
    });
  }

  private certManagerObjects(props: OperatorWebhooksProps, serviceName: string, secretName: string): void {
    const ns = props.namespace;
    const cm = (id: string, kind: string, name: string, spec: object) =>
      new ApiObject(this, id, {
        apiVersion: 'cert-manager.io/v1',
        kind,
        metadata: { name, namespace: ns },
        spec,
      } as any);
    // A CA of its own (self-signed) that issues the serving certificate: cainjector injects the CA,
    // so a renewed serving certificate needs no new caBundle.
    cm('SelfSignedIssuer', 'Issuer', `${props.name}-selfsigned`, { selfSigned: {} });
    cm('CaCertificate', 'Certificate', `${props.name}-webhook-ca`, {
      isCA: true,
      commonName: `${props.name}-webhook-ca`,
      secretName: `${props.name}-webhook-ca`,
      privateKey: { algorithm: 'ECDSA', size: 256 },
      issuerRef: { kind: 'Issuer', name: `${props.name}-selfsigned` },
    });
    cm('CaIssuer', 'Issuer', `${props.name}-webhook-ca`, { ca: { secretName: `${props.name}-webhook-ca` } });
    cm('ServingCertificate', 'Certificate', secretName, {
      secretName,
      dnsNames: [`${serviceName}.${ns}.svc`, `${serviceName}.${ns}.svc.cluster.local`],
      issuerRef: { kind: 'Issuer', name: `${props.name}-webhook-ca` },
    });
  }
}

function apiVersionOf(k: KindSelector, kind: ResolvedKind): string {
  const version = versionOf(k, kind);
  return kind.group ? `${kind.group}/${version}` : version;
}

/** The version the handler is written against: the reference's, else the CRD's storage version. */
function versionOf(k: KindSelector, kind: ResolvedKind): string {
  const apiVersion = isCustomResourceDefinitionLike(k) ? undefined : k.apiVersion;
  if (apiVersion) return apiVersion.includes('/') ? apiVersion.split('/')[1] : apiVersion;
  return kind.version;
}

function selector(s: LabelSelectorOf): object {
  return {
    ...(s.matchLabels ? { matchLabels: { ...s.matchLabels } } : {}),
    ...(s.matchExpressions?.length
      ? { matchExpressions: s.matchExpressions.map((e) => ({ ...e, ...(e.values ? { values: [...e.values] } : {}) })) }
      : {}),
  };
}

/**
 * The user's namespace selector ANDed with "not the operator's namespace, not kube-system" and, for an operator
 * watching some namespaces, "one of those" (its handlers' caches hold nothing of the other namespaces).
 */
function excludingSystem(
  namespace: string,
  user: LabelSelectorOf | undefined,
  watchNamespaces: readonly string[] | undefined,
): object {
  const base = selector(user ?? {}) as { matchLabels?: object; matchExpressions?: object[] };
  const watched = watchNamespaces?.length
    ? [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [...watchNamespaces] }]
    : [];
  return {
    ...base,
    matchExpressions: [
      ...(base.matchExpressions ?? []),
      ...watched,
      { key: NAMESPACE_NAME_LABEL, operator: 'NotIn', values: [...new Set([namespace, ...SYSTEM_NAMESPACES])] },
    ],
  };
}
