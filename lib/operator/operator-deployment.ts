import { ApiObject, Duration, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { imagePinningProblem } from './image-reference';
import { ShardAssignment, ShardRanges } from '../apimachinery/controller-contract';
import { Problems } from '../synth-metadata/problems';

/** How long a health probe of the operator may take before it counts as failed (the kubelet's default: 1 s). */
const PROBE_TIMEOUT = Duration.seconds(5);

/** Props of `OperatorDeployment`. */
export interface OperatorDeploymentProps {
  /** Name of the Deployment and prefix of its Service and PodDisruptionBudget. */
  readonly name: string;
  readonly namespace: string;
  /** Controller image, pinned: a tag other than `latest`, or a digest. */
  readonly image: string;
  /** Identity of the controller; its token is mounted. */
  readonly serviceAccount: kplus.IServiceAccount;
  /** @default 1 */
  readonly replicas?: number;
  /**
   * Pass `--leader-elect`; required when replicas > 1 (otherwise two controllers reconcile at once).
   * @default false
   */
  readonly leaderElection?: boolean;
  /**
   * Run as members of a shard ring: `--sharding-ring`, `--sharding-key`, `--sharding-assignment`, `--sharding-ranges`,
   * and `--sharding-replicas` from `replicas` (runtime sharding.ts). Every replica reconciles its share, so replicas > 1
   * need no leader election.
   * @default - not sharded
   */
  readonly sharding?: {
    readonly ring: string;
    readonly key: 'uid' | 'namespace';
    readonly assignment: ShardAssignment;
    /** `namespaces`: assignment `server` cuts the hash space by the namespaces (`--sharding-ranges`). @default 'even' */
    readonly ranges?: ShardRanges;
    /** Serve the ring's labelling webhook (`--sharding-label-webhook`). @default false */
    readonly labelWebhook?: boolean;
  };
  /**
   * Namespaces the controller watches, passed as `WATCH_NAMESPACE` (comma-separated; empty = all).
   * @default - cluster-wide
   */
  readonly watchNamespaces?: readonly string[];
  /**
   * Container resources.
   * @default - requests 10m CPU / 64Mi memory, limits 500m CPU / 128Mi memory (kubebuilder's scaffold)
   */
  readonly resources?: kplus.ContainerResources;
  /** Extra environment variables. @default {} */
  readonly env?: Record<string, string>;
  /** Extra arguments after the health, metrics and leader-election flags. @default [] */
  readonly args?: readonly string[];
  /** Port of `/healthz` and `/readyz`. @default 8081 */
  readonly healthPort?: number;
  /** Port of `/metrics`, exposed by a Service. @default 8080 */
  readonly metricsPort?: number;
  /** Non-root user and group the container runs as. @default 65532 */
  readonly runAsUser?: number;
}

/**
 * The labels that select the controller's pods (Deployment, Service, PodDisruptionBudget, NetworkPolicy).
 * From the operator's name only, never from the construct path (cdk8s-plus' default): a Deployment's selector
 * is immutable, so renaming or moving the construct must not change it.
 * @internal
 */
export function controllerSelectorLabels(name: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/instance': name,
    'app.kubernetes.io/component': 'controller',
  };
}

/** Labels on the controller's objects and pods: the selector labels and who manages them. @internal */
export function controllerLabels(name: string): Record<string, string> {
  return { ...controllerSelectorLabels(name), 'app.kubernetes.io/managed-by': 'cdk8s-operator' };
}

/**
 * The controller Deployment, hardened to Pod Security "restricted": non-root, seccomp
 * RuntimeDefault, all capabilities dropped, no privilege escalation, read-only root filesystem
 * (with a writable `/tmp`). Probes `/healthz` and `/readyz`, a metrics Service, `POD_NAMESPACE`
 * from the downward API, `WATCH_NAMESPACE` from the watch scope; with 2+ replicas, preferred
 * anti-affinity across nodes and a PodDisruptionBudget.
 *
 * @see https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted
 */
export class OperatorDeployment extends Construct {
  public readonly deployment: kplus.Deployment;
  /**
   * The controller's pods by their stable labels (`controllerSelectorLabels`): select with this, not with
   * `deployment`, whose own selector config is a hash of the construct path.
   */
  public readonly pods: kplus.IPodSelector;
  /** The `manager` container. */
  public readonly container: kplus.Container;
  /** `<name>-metrics`, port `metrics`. */
  public readonly metricsService: kplus.Service;
  /** Only with 2+ replicas. */
  public readonly podDisruptionBudget?: ApiObject;
  public readonly healthPort: number;
  public readonly metricsPort: number;

  constructor(scope: Construct, id: string, props: OperatorDeploymentProps) {
    super(scope, id);
    const imageProblem = imagePinningProblem(props.image);
    if (imageProblem) Problems.of(this).add(`image: ${imageProblem}`);
    const replicas = props.replicas ?? 1;
    if (!Number.isInteger(replicas) || replicas < 1) {
      Problems.of(this).add(`replicas: must be an integer >= 1, got ${replicas}`);
    }
    if (replicas > 1 && !props.leaderElection && !props.sharding) {
      Problems.of(this).add(
        `replicas: ${replicas} replicas need leader election (contract.leaderElection: true), or two controllers reconcile at once`,
      );
    }
    this.healthPort = Problems.of(this).recordErrors(() => checkPort('healthPort', props.healthPort ?? 8081), 8081);
    const metricsPort = Problems.of(this).recordErrors(() => checkPort('metricsPort', props.metricsPort ?? 8080), 8080);
    if (metricsPort === this.healthPort) {
      Problems.of(this).add(`metricsPort: must differ from healthPort, got ${metricsPort}`);
    }
    // with the problem recorded, construction goes on with distinct ports (cdk8s-plus rejects a repeated one)
    this.metricsPort = metricsPort === this.healthPort ? metricsPort + 1 : metricsPort;
    const user = props.runAsUser ?? 65532;
    if (!Number.isInteger(user) || user <= 0) {
      Problems.of(this).add(`runAsUser: must be a non-root user id (> 0), got ${user}`);
    }

    const labels = controllerLabels(props.name);
    this.deployment = new kplus.Deployment(this, 'Deployment', {
      metadata: { name: props.name, namespace: props.namespace, labels },
      podMetadata: { labels },
      select: false, // selected by controllerSelectorLabels below, not by a hash of the construct path
      replicas,
      serviceAccount: props.serviceAccount,
      automountServiceAccountToken: true, // cdk8s-plus turns it off; the controller needs its token
      securityContext: { ensureNonRoot: true, user, group: user, fsGroup: user },
      terminationGracePeriod: Duration.seconds(30),
    });
    const selectorLabels = controllerSelectorLabels(props.name);
    this.deployment.select(kplus.LabelSelector.of({ labels: selectorLabels }));
    this.pods = kplus.Pods.select(this, 'Pods', { labels: selectorLabels });

    const env: Record<string, kplus.EnvValue> = {
      POD_NAMESPACE: kplus.EnvValue.fromFieldRef(kplus.EnvFieldPaths.POD_NAMESPACE),
      POD_NAME: kplus.EnvValue.fromFieldRef(kplus.EnvFieldPaths.POD_NAME),
      WATCH_NAMESPACE: kplus.EnvValue.fromValue((props.watchNamespaces ?? []).join(',')),
    };
    for (const [k, v] of Object.entries(props.env ?? {})) {
      if (k in env) Problems.of(this).add(`env.${k}: is set by the operator, got '${v}'`);
      env[k] = kplus.EnvValue.fromValue(v);
    }

    this.container = this.deployment.addContainer({
      name: 'manager',
      image: props.image,
      imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
      args: [
        `--health-probe-bind-address=:${this.healthPort}`,
        `--metrics-bind-address=:${this.metricsPort}`,
        ...(props.leaderElection ? ['--leader-elect'] : []),
        ...(props.sharding
          ? [
              `--sharding-ring=${props.sharding.ring}`,
              `--sharding-key=${props.sharding.key}`,
              `--sharding-assignment=${props.sharding.assignment}`,
              ...(props.sharding.ranges === 'namespaces' ? ['--sharding-ranges=namespaces'] : []),
              // members started together wait for each other before they list their share
              ...(replicas > 1 ? [`--sharding-replicas=${replicas}`] : []),
              ...(props.sharding.labelWebhook ? ['--sharding-label-webhook'] : []),
            ]
          : []),
        ...(props.args ?? []),
      ],
      envVariables: env,
      ports: [
        { number: this.healthPort, name: 'health' },
        { number: this.metricsPort, name: 'metrics' },
      ],
      // Kubebuilder's periods, with more patience: an operator whose node is saturated (its CPU request is small
      // beside its operands') answers slowly, and the kubelet's 1 s default timeout then restarted it again and again
      // (a CI node at a load of 45: the SampleDB operator restarted 3 times in 8 minutes and did no work), each
      // restart a new start, list and leader election: the liveness probe blocked the operator's own recovery.
      liveness: kplus.Probe.fromHttpGet('/healthz', {
        port: this.healthPort,
        initialDelaySeconds: Duration.seconds(15),
        periodSeconds: Duration.seconds(20),
        timeoutSeconds: PROBE_TIMEOUT,
      }),
      readiness: kplus.Probe.fromHttpGet('/readyz', {
        port: this.healthPort,
        initialDelaySeconds: Duration.seconds(5),
        periodSeconds: Duration.seconds(10),
        timeoutSeconds: PROBE_TIMEOUT,
      }),
      startup: kplus.Probe.fromHttpGet('/healthz', {
        port: this.healthPort,
        failureThreshold: 60,
        periodSeconds: Duration.seconds(2),
        timeoutSeconds: PROBE_TIMEOUT,
      }),
      resources: props.resources ?? {
        cpu: { request: kplus.Cpu.millis(10), limit: kplus.Cpu.millis(500) },
        memory: { request: Size.mebibytes(64), limit: Size.mebibytes(128) },
      },
      securityContext: {
        ensureNonRoot: true,
        user,
        group: user,
        privileged: false,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: [kplus.Capability.ALL] },
        seccompProfile: { type: kplus.SeccompProfileType.RUNTIME_DEFAULT },
      },
      volumeMounts: [
        { path: '/tmp', volume: kplus.Volume.fromEmptyDir(this, 'Tmp', 'tmp', { sizeLimit: Size.mebibytes(64) }) },
      ],
    });
    // cdk8s-plus has no pod-level seccompProfile; set it too so any container added later is covered.
    ApiObject.of(this.deployment).addJsonPatch(
      JsonPatch.add('/spec/template/spec/securityContext/seccompProfile', { type: 'RuntimeDefault' }),
    );

    this.metricsService = new kplus.Service(this, 'MetricsService', {
      metadata: { name: `${props.name}-metrics`, namespace: props.namespace, labels },
      selector: this.pods,
      ports: [{ name: 'metrics', port: this.metricsPort, targetPort: this.metricsPort }],
    });

    if (replicas >= 2) {
      this.deployment.scheduling.spread({ topology: kplus.Topology.HOSTNAME, weight: 100 });
      this.podDisruptionBudget = new kplus.k8s.KubePodDisruptionBudget(this, 'PodDisruptionBudget', {
        metadata: { name: props.name, namespace: props.namespace, labels },
        spec: {
          maxUnavailable: kplus.k8s.IntOrString.fromNumber(1),
          selector: { matchLabels: this.deployment.matchLabels },
        },
      });
    }
  }
}

function checkPort(field: string, port: number): number {
  if (!Number.isInteger(port) || port < 1024 || port > 65535) {
    throw new Error(`${field}: must be an unprivileged port (1024-65535), got ${port}`);
  }
  return port;
}
