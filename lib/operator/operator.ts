import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { egressForContract } from './contract-egress';
import { ControllerContract, resolveKind } from './controller-contract';
import { OperatorDeployment } from './operator-deployment';
import { OperatorMonitoring, OperatorMonitoringOptions } from './operator-monitoring';
import { OperatorNetworkPolicy } from './operator-network-policy';
import { AdditionalRbacRule, OperatorRbac } from './operator-rbac';
import { OperatorWebhook } from './operator-webhook';
import { OperatorWebhookOptions, OperatorWebhooks } from './operator-webhooks';
import { renderRbacReport } from './rbac-report';
import { RbacRisk } from './rbac-risk';
import { contractShardAssignment, contractShardRanges, ShardAssignment } from '../apimachinery/controller-contract';
import { CustomResourceDefinition } from '../crd/custom-resource-definition';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';
import { OutputFiles } from '../synth-metadata/output-files';
import { Problems } from '../synth-metadata/problems';

/** Labels that make a namespace enforce Pod Security "restricted". @internal */
export const RESTRICTED_NAMESPACE_LABELS: Record<string, string> = {
  'pod-security.kubernetes.io/enforce': 'restricted',
  'pod-security.kubernetes.io/enforce-version': 'latest',
  'pod-security.kubernetes.io/warn': 'restricted',
  'pod-security.kubernetes.io/audit': 'restricted',
};

/** Namespaces every cluster has: never created (deleting the output must not try to delete them). */
const BUILT_IN_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

/** Props of `Operator`. */
export interface OperatorProps {
  /**
   * Name of the ServiceAccount and Deployment and prefix of every other object.
   * @default - the construct id, lowercased
   */
  readonly name?: string;
  /**
   * Namespace the controller runs in.
   * @default `<name>-system`
   */
  readonly namespace?: string;
  /**
   * Create the operator's Namespace, labelled to enforce Pod Security "restricted".
   * @default true
   */
  readonly createNamespace?: boolean;
  /**
   * More labels on the Namespace the construct creates (e.g. the label a Prometheus' `serviceMonitorNamespaceSelector`
   * matches), besides the Pod Security "restricted" ones.
   * @default {}
   */
  readonly namespaceLabels?: Record<string, string>;
  /**
   * Create a Namespace for each watched namespace (only for a namespaced watch scope), so the output applies to a
   * fresh cluster: the Roles, RoleBindings and example resources in a watched namespace need it to exist.
   * Namespaces every cluster has (`default`, `kube-system`, `kube-public`, `kube-node-lease`) are never created.
   * Set `false` when the watched namespaces are managed elsewhere (then deleting this output leaves them alone).
   * @default true
   */
  readonly createWatchNamespaces?: boolean;
  /**
   * CRDs the operator manages; custom kinds in the contract are resolved against them.
   * @default []
   */
  readonly crds?: readonly ICustomResourceDefinition[];
  /** Controller image, pinned to a tag (not `latest`) or a digest. */
  readonly image: string;
  /** What the controller does against the API; RBAC and flags are derived from it. */
  readonly contract: ControllerContract;
  /**
   * Namespaces to watch (a Role + RoleBinding in each, `WATCH_NAMESPACE` set). Either here or in
   * `contract.watchNamespaces`; both set must agree.
   * @default - `contract.watchNamespaces`, else cluster-wide
   */
  readonly watchNamespaces?: readonly string[];
  /** @default 1 */
  readonly replicas?: number;
  /** @default - requests 10m/64Mi, limits 500m/128Mi */
  readonly resources?: kplus.ContainerResources;
  /** @default {} */
  readonly env?: Record<string, string>;
  /** @default [] */
  readonly args?: readonly string[];
  /** @default 8081 */
  readonly healthPort?: number;
  /** @default 8080 */
  readonly metricsPort?: number;
  /**
   * Escape hatch: permissions beyond the contract, each reported at synth.
   * @default []
   */
  readonly additionalRules?: readonly AdditionalRbacRule[];
  /**
   * Risks accepted for the contract's own rules (e.g. `RbacRisk.SECRETS_READ` when watching Secrets).
   * @default []
   */
  readonly acceptRisks?: readonly RbacRisk[];
  /**
   * Add a NetworkPolicy (default deny; health/metrics ingress, apiserver and DNS egress, and
   * egress to the pods of `contract.connectsTo`).
   * @default true
   */
  readonly networkPolicy?: boolean;
  /**
   * Address ranges of the apiserver endpoints for the NetworkPolicy.
   * @default ['0.0.0.0/0'] (on `apiServerPorts` only)
   */
  readonly apiServerCidrs?: readonly string[];
  /**
   * Ports the apiserver endpoints listen on, for the NetworkPolicy (the endpoint port, not the
   * `kubernetes` Service's 443).
   * @default DEFAULT_API_SERVER_PORTS (443, 6443, 8443, 16443)
   */
  readonly apiServerPorts?: readonly number[];
  /**
   * A ServiceMonitor and a PrometheusRule (needs prometheus-operator's CRDs on the cluster).
   * @default - none
   */
  readonly monitoring?: OperatorMonitoringOptions;
  /**
   * How the webhooks declared in `contract.webhooks` are served: certificates self-managed by the
   * operator (default, no cert-manager) or by cert-manager, and the port. Ignored without webhooks.
   * @default - self-managed certificates, port 9443
   */
  readonly webhooks?: OperatorWebhookOptions;
  /**
   * Run the controller sharded (docs/sharding.md): `replicas` members of one shard ring, each reconciling and
   * caching only its share of the objects, assigned by rendezvous hashing of `key` (the object's UID, its owner's for
   * owned objects; or its namespace). Needs `contract.sharding` (the member Leases). Replaces `replicas`; a
   * PodDisruptionBudget lets one member down at a time; the RBAC report says how the work is split.
   * @default - not sharded
   */
  readonly sharding?: OperatorShardingOptions;
}

/** How an {@link Operator}'s controller is sharded. */
export interface OperatorShardingOptions {
  /** Members of the ring (Deployment replicas), at least 1. */
  readonly replicas: number;
  /** What objects are assigned by. @default 'uid' */
  readonly key?: 'uid' | 'namespace';
  /**
   * How members get their share (`--sharding-assignment`): `labels` writes the assignment on the objects as a label
   * (the only one that needs `patch` on the sharded kinds), `hash` has each member filter the whole stream, `server`
   * asks the apiserver for each member's hash ranges (Kubernetes 1.36+ with the gate `ShardedListAndWatch`;
   * detected at start, `hash` where it is not served). Must be the one `contract.sharding` grants: the RBAC is
   * derived from the contract.
   * @default - the contract's: `labels` for `contract.sharding: true`, else `contract.sharding.assignment`
   */
  readonly assignment?: ShardAssignment;
  /**
   * With the `labels` assignment, label objects in their create request (kubernetes-controller-sharding's sharder
   * webhook) instead of patching them afterwards: a MutatingWebhookConfiguration for CREATE of the contract's
   * `watches` kinds, served by every member at `/label-shard-<ring>` (`--sharding-label-webhook`), with the webhook
   * Service and certificates the operator's other webhooks use (`webhooks`), `failurePolicy: Ignore` and a 2 s
   * timeout (a create never waits on the ring longer: the assigner labels what the webhook did not), and not called
   * for objects that carry the label already (the members' own creates). With `key: 'namespace'` it saves one patch
   * per object created by others. With `key: 'uid'` it can label only objects created with a controller owner (the
   * UID of a new object is not assigned at admission; those are matched by a matchCondition): objects a user creates
   * still get the assigner's patch, so it is off by default there.
   * @default - true with `labels` and `key: 'namespace'`, else false
   */
  readonly labelWebhook?: boolean;
}

const OPERATOR_MARKER = Symbol.for('cdk8s-operator.Operator');

/**
 * A whole operator from its contract: RBAC (`OperatorRbac`), the hardened Deployment with its
 * metrics Service (`OperatorDeployment`), a NetworkPolicy (`OperatorNetworkPolicy`), optional
 * monitoring (`OperatorMonitoring`) and its Namespace. Writes `<name>.rbac-report.md` next to the
 * manifests when synthesized by `OperatorApp` (whose `policy` option checks it, with every other
 * object of the app, against Pod Security "restricted" and an RBAC lint).
 *
 * @example
 * const app = new OperatorApp({ layout: OutputLayout.APPLY_ORDER });
 * const chart = new Chart(app, 'foo');
 * const foo = CustomResourceDefinition.fromFile(chart, 'FooCrd', 'controllers/foo/crd.yaml');
 * new Operator(chart, 'foo-controller', {
 *   crds: [foo],
 *   image: 'ghcr.io/acme/foo-controller:0.1.0',
 *   replicas: 2,
 *   contract: {
 *     watches: [foo],
 *     owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
 *     status: true, events: true, leaderElection: true,
 *   },
 *   watchNamespaces: ['team-a'], // omit for cluster-wide
 * });
 * app.synth(); // dist/0-namespaces.yaml … dist/APPLY.md, dist/foo-controller.rbac-report.md
 */
export class Operator extends Construct {
  /** Whether `x` is an Operator construct (works across copies of this library). */
  public static isOperator(x: unknown): x is Operator {
    return typeof x === 'object' && x !== null && (x as any)[OPERATOR_MARKER] === true;
  }

  public readonly name: string;
  public readonly namespace: string;
  public readonly rbac: OperatorRbac;
  public readonly controller: OperatorDeployment;
  public readonly networkPolicy?: OperatorNetworkPolicy;
  public readonly monitoring?: OperatorMonitoring;
  /** The webhook Service and certificate Secret, when the operator serves webhooks (`contract.conversion`). */
  public readonly webhook?: OperatorWebhook;
  /** The webhook configurations, Service and certificates, when the contract declares webhooks. */
  public readonly webhooks?: OperatorWebhooks;

  constructor(scope: Construct, id: string, props: OperatorProps) {
    super(scope, id);
    Object.defineProperty(this, OPERATOR_MARKER, { value: true });
    this.name = props.name ?? id.toLowerCase();
    this.namespace = props.namespace ?? `${this.name}-system`;
    // replicas without leader election are reported once, by the Controller (OperatorDeployment)
    const leaderElection = props.contract.leaderElection ?? false;
    const sharding = props.sharding;
    if (sharding) {
      if (!Number.isInteger(sharding.replicas) || sharding.replicas < 1) {
        Problems.of(this).add(`sharding.replicas: must be an integer >= 1, got ${sharding.replicas}`);
      }
      if (sharding.key !== undefined && sharding.key !== 'uid' && sharding.key !== 'namespace') {
        Problems.of(this).add(`sharding.key: must be 'uid' or 'namespace', got '${sharding.key}'`);
      }
      const granted = contractShardAssignment(props.contract);
      if (!granted) {
        Problems.of(this).add('sharding: the controller needs its member Leases: set contract.sharding: true');
      } else if (sharding.assignment !== undefined && sharding.assignment !== granted) {
        Problems.of(this).add(
          `sharding.assignment: '${sharding.assignment}' differs from contract.sharding's '${granted}' ` +
            `(only 'labels' is granted patch on the sharded kinds); set contract.sharding: ` +
            `${sharding.assignment === 'labels' ? 'true' : `{ assignment: '${sharding.assignment}' }`} and omit sharding.assignment`,
        );
      }
      if (contractShardRanges(props.contract) === 'namespaces' && (sharding.key ?? 'uid') !== 'namespace') {
        Problems.of(this).add(
          `sharding.key: contract.sharding.ranges 'namespaces' cuts the hash ranges by namespace: needs key 'namespace', got '${sharding.key ?? 'uid'}'`,
        );
      }
      if (sharding.labelWebhook && granted && granted !== 'labels') {
        Problems.of(this).add(
          `sharding.labelWebhook: true needs the labels assignment, got '${granted}' (nothing is labelled); remove it`,
        );
      }
      if (props.replicas !== undefined) {
        Problems.of(this).add(
          `replicas: a sharded operator runs sharding.replicas members, got replicas: ${props.replicas} as well; remove it`,
        );
      }
    }
    const replicas = sharding ? sharding.replicas : props.replicas;
    const ring = sharding && {
      ring: this.name,
      key: sharding.key ?? 'uid',
      assignment: contractShardAssignment(props.contract) ?? 'labels',
      ranges: contractShardRanges(props.contract),
    };
    // The labelling webhook (sharding.labelWebhook): served by every member, with the other webhooks' Service and certificates.
    const shardLabel =
      ring?.assignment === 'labels' && (sharding!.labelWebhook ?? ring.key === 'namespace')
        ? { ring: ring.ring, key: ring.key, kinds: props.contract.watches ?? [] }
        : undefined;
    const watchNamespaces = props.watchNamespaces ?? props.contract.watchNamespaces;
    if (
      props.watchNamespaces &&
      props.contract.watchNamespaces &&
      JSON.stringify(props.watchNamespaces) !== JSON.stringify(props.contract.watchNamespaces)
    ) {
      Problems.of(this).add(
        `watchNamespaces: ${JSON.stringify(props.watchNamespaces)} differs from contract.watchNamespaces ` +
          `${JSON.stringify(props.contract.watchNamespaces)}; set one of them`,
      );
    }

    if (props.createNamespace ?? true) {
      new kplus.Namespace(this, 'Namespace', {
        metadata: {
          name: this.namespace,
          labels: { ...(props.namespaceLabels ?? {}), ...RESTRICTED_NAMESPACE_LABELS },
        },
      });
    }
    // One webhook server per operator: conversion (contract.conversion) and admission (contract.webhooks) share its
    // Service, port, certificate Secret and certificate rotation.
    const servesWebhooks =
      (props.contract.conversion ?? []).length + (props.contract.webhooks ?? []).length > 0 || shardLabel !== undefined;
    this.rbac = new OperatorRbac(this, 'Rbac', {
      name: this.name,
      namespace: this.namespace,
      contract: props.contract,
      crds: props.crds,
      watchNamespaces,
      webhookSecretName: servesWebhooks ? `${this.name}-webhook-certs` : undefined,
      additionalRules: props.additionalRules,
      acceptRisks: props.acceptRisks,
    });
    if ((props.createWatchNamespaces ?? true) && watchNamespaces) {
      for (const ns of watchNamespaces.filter((n) => n !== this.namespace && !BUILT_IN_NAMESPACES.includes(n))) {
        new kplus.Namespace(this, `WatchNamespace-${ns}`, { metadata: { name: ns } });
      }
    }
    if ((props.contract.webhooks?.length ?? 0) > 0 || shardLabel) {
      this.webhooks = new OperatorWebhooks(this, 'Webhooks', {
        ...props.webhooks,
        name: this.name,
        namespace: this.namespace,
        contract: props.contract,
        crds: props.crds ?? [],
        watchNamespaces,
        replicas: replicas ?? 1,
        serviceName: `${this.name}-webhook`,
        secretName: `${this.name}-webhook-certs`,
        shardLabel,
      });
      const wiring = this.webhooks.wiring;
      this.rbac.grantWebhooks(
        wiring.configurations,
        (props.webhooks?.certificates ?? 'self-managed') === 'self-managed',
        (props.contract.webhooks ?? []).some((w) => w.readsNamespace),
      );
    }
    const webhookWiring = this.webhooks?.wiring;
    this.controller = new OperatorDeployment(this, 'Controller', {
      name: this.name,
      namespace: this.namespace,
      image: props.image,
      serviceAccount: this.rbac.serviceAccount,
      replicas,
      leaderElection,
      sharding: ring && { ...ring, labelWebhook: shardLabel !== undefined },
      watchNamespaces,
      resources: props.resources,
      env: webhookWiring ? { ...webhookWiring.env, ...props.env } : props.env,
      args: props.args,
      healthPort: props.healthPort,
      metricsPort: props.metricsPort,
    });
    if (servesWebhooks) {
      this.webhook = new OperatorWebhook(this, 'Webhook', {
        name: this.name,
        namespace: this.namespace,
        pods: this.controller.pods,
        container: this.controller.container,
        port: props.webhooks?.port,
      });
      if ((props.contract.conversion ?? []).length > 0) this.convertThroughWebhook(props);
    }
    const contractEgress = egressForContract(props.contract, watchNamespaces);
    contractEgress.problems.forEach((p) => Problems.of(this).add(p));
    if (props.networkPolicy ?? true) {
      this.networkPolicy = new OperatorNetworkPolicy(this, 'NetworkPolicy', {
        name: this.name,
        namespace: this.namespace,
        selector: this.controller.pods,
        healthPort: this.controller.healthPort,
        metricsPort: this.controller.metricsPort,
        apiServerCidrs: props.apiServerCidrs,
        apiServerPorts: props.apiServerPorts,
        egressToPods: contractEgress.egress,
        webhookPort: this.webhook?.port,
      });
    }
    if (props.monitoring) {
      this.monitoring = new OperatorMonitoring(this, 'Monitoring', {
        ...props.monitoring,
        name: this.name,
        namespace: this.namespace,
        metricsService: this.controller.metricsService,
      });
    }

    OutputFiles.of(this).add(`${this.name}.rbac-report.md`, () =>
      renderRbacReport({
        operatorName: this.name,
        serviceAccount: { name: this.rbac.serviceAccount.name, namespace: this.namespace },
        watchNamespaces: this.rbac.watchNamespaces,
        grants: this.rbac.grants,
        podEgress: this.networkPolicy ? contractEgress.egress : undefined,
        sharding: ring &&
          sharding && {
            ...ring,
            replicas: sharding.replicas,
            labelWebhook: this.webhooks?.shardLabelWebhooks.length
              ? { configuration: this.name, webhooks: this.webhooks.shardLabelWebhooks }
              : undefined,
          },
      }),
    );
  }

  /** Points the CRD of each kind in `contract.conversion` at this operator's webhook (the operator injects the CA bundle). */
  private convertThroughWebhook(props: OperatorProps): void {
    (props.contract.conversion ?? []).forEach((selector, i) => {
      const field = `contract.conversion[${i}]`;
      const kind = Problems.of(this).recordErrors(() => resolveKind(selector, props.crds ?? [], field), undefined);
      if (!kind) return;
      const crd = (props.crds ?? []).find((c) => c.group === kind.group && c.names.kind === kind.kind);
      if (!crd || !CustomResourceDefinition.isCustomResourceDefinition(crd) || crd.imported) {
        Problems.of(this).add(
          `${field}: ${kind.kind}.${kind.group} must be a CustomResourceDefinition built by this app (in crds), so its spec.conversion can point at the operator's webhook`,
        );
        return;
      }
      crd.setConversionWebhook({
        service: { name: this.webhook!.serviceName, namespace: this.namespace, port: 443, path: '/convert' },
      });
    });
  }
}
