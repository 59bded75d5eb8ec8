/**
 * prometheus-operator's `monitoring.coreos.com/v1` kinds as this operator reads them: the supported
 * subset only (README.md lists it field by field; subset.ts finds any other field an object sets).
 * The CRDs themselves are upstream's, unchanged (vendor/crds/prometheus-operator-v0.93.0/).
 */
import { KubeObject, LabelSelector, ObjectMeta, resourceRef, Stored, StoredMeta } from '../../runtime';

export const GROUP = 'monitoring.coreos.com';
export const API_VERSION = `${GROUP}/v1`;

/** A relabeling rule (upstream `RelabelConfig`), written into the configuration as Prometheus names it. */
export interface RelabelConfig {
  readonly sourceLabels?: readonly string[];
  readonly separator?: string;
  readonly targetLabel?: string;
  readonly regex?: string;
  readonly modulus?: number;
  readonly replacement?: string;
  readonly action?: string;
}

/** A ServiceMonitor endpoint (the supported fields). */
export interface Endpoint {
  readonly port?: string;
  readonly path?: string;
  readonly interval?: string;
  readonly scrapeTimeout?: string;
  readonly scheme?: string;
  readonly honorLabels?: boolean;
  readonly relabelings?: readonly RelabelConfig[];
  readonly metricRelabelings?: readonly RelabelConfig[];
}

/** `namespaceSelector` of a ServiceMonitor: `any`, or a list of names, else its own namespace. */
export interface NamespaceSelector {
  readonly any?: boolean;
  readonly matchNames?: readonly string[];
}

/** One binding in the status of a ServiceMonitor or PrometheusRule: which Prometheus selected it, and whether it was accepted. */
export interface WorkloadBinding {
  group: string;
  resource: string;
  name: string;
  namespace: string;
  conditions?: {
    type: string;
    status: 'True' | 'False' | 'Unknown';
    reason?: string;
    message?: string;
    observedGeneration?: number;
    lastTransitionTime: string;
  }[];
}

/** Status of ServiceMonitors and PrometheusRules (upstream's `ConfigResourceStatus`). */
export interface ConfigResourceStatus {
  bindings?: WorkloadBinding[];
}

export interface ServiceMonitor extends KubeObject {
  spec: {
    readonly selector: LabelSelector;
    readonly namespaceSelector?: NamespaceSelector;
    readonly endpoints?: readonly Endpoint[];
    readonly [other: string]: unknown;
  };
  status?: ConfigResourceStatus;
}

/** One rule of a PrometheusRule group. */
export interface Rule {
  readonly alert?: string;
  readonly record?: string;
  readonly expr: string | number;
  readonly for?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly [other: string]: unknown;
}

export interface RuleGroup {
  readonly name: string;
  readonly interval?: string;
  readonly rules?: readonly Rule[];
  readonly [other: string]: unknown;
}

export interface PrometheusRule extends KubeObject {
  spec: { readonly groups?: readonly RuleGroup[] };
  status?: ConfigResourceStatus;
}

/** One entry of `alerting.alertmanagers`: the Service of an Alertmanager. */
export interface AlertmanagerEndpoints {
  readonly name: string;
  readonly namespace?: string;
  readonly port: string | number;
  readonly scheme?: string;
  readonly pathPrefix?: string;
  readonly apiVersion?: string;
  readonly timeout?: string;
}

/** `resources` as a container takes them. */
export interface ResourceRequirements {
  readonly requests?: Readonly<Record<string, string | number>>;
  readonly limits?: Readonly<Record<string, string | number>>;
}

/** A status condition of Prometheus / Alertmanager (upstream's `Condition`; this operator always sets reason and message). */
export interface WorkloadCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  observedGeneration?: number;
  lastTransitionTime: string;
}

export interface WorkloadStatus {
  replicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  unavailableReplicas?: number;
  paused?: boolean;
  conditions?: WorkloadCondition[];
}

export interface Prometheus extends KubeObject {
  spec: {
    readonly replicas?: number;
    readonly version?: string;
    readonly image?: string;
    readonly serviceAccountName?: string;
    readonly serviceMonitorSelector?: LabelSelector | null;
    readonly serviceMonitorNamespaceSelector?: LabelSelector | null;
    readonly ruleSelector?: LabelSelector | null;
    readonly ruleNamespaceSelector?: LabelSelector | null;
    readonly retention?: string;
    readonly resources?: ResourceRequirements;
    readonly alerting?: { readonly alertmanagers?: readonly AlertmanagerEndpoints[] };
    readonly externalLabels?: Readonly<Record<string, string>>;
    readonly scrapeInterval?: string;
    readonly evaluationInterval?: string;
    readonly [other: string]: unknown;
  };
  status?: WorkloadStatus;
}

export interface Alertmanager extends KubeObject {
  spec: {
    readonly replicas?: number;
    readonly version?: string;
    readonly image?: string;
    readonly configSecret?: string;
    readonly resources?: ResourceRequirements;
    readonly [other: string]: unknown;
  };
  status?: WorkloadStatus;
}

export interface Namespace extends KubeObject {
  metadata?: ObjectMeta;
}

export interface StatefulSet extends KubeObject {
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    observedGeneration?: number;
  };
}

/** A v1 Endpoints object (the fields file discovery reads). */
export interface Endpoints extends KubeObject {
  subsets?: {
    addresses?: { ip: string; hostname?: string; nodeName?: string; targetRef?: { kind?: string; name?: string } }[];
    notReadyAddresses?: {
      ip: string;
      hostname?: string;
      nodeName?: string;
      targetRef?: { kind?: string; name?: string };
    }[];
    ports?: { name?: string; port: number; protocol?: string }[];
  }[];
}

export interface Service extends KubeObject {
  spec?: { ports?: { name?: string; port?: number }[] };
}

export const PROMETHEUS = resourceRef<Prometheus>({
  apiVersion: API_VERSION,
  kind: 'Prometheus',
  plural: 'prometheuses',
});
export const ALERTMANAGER = resourceRef<Alertmanager>({
  apiVersion: API_VERSION,
  kind: 'Alertmanager',
  plural: 'alertmanagers',
});
export const SERVICEMONITOR = resourceRef<ServiceMonitor>({
  apiVersion: API_VERSION,
  kind: 'ServiceMonitor',
  plural: 'servicemonitors',
});
export const PROMETHEUSRULE = resourceRef<PrometheusRule>({
  apiVersion: API_VERSION,
  kind: 'PrometheusRule',
  plural: 'prometheusrules',
});
export const NAMESPACE = resourceRef<Namespace>({ apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' });
export const SERVICE = resourceRef<Service>({ apiVersion: 'v1', kind: 'Service', plural: 'services' });
export const STATEFULSET = resourceRef<StatefulSet>({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  plural: 'statefulsets',
});
export const ENDPOINTS = resourceRef<Endpoints>({ apiVersion: 'v1', kind: 'Endpoints', plural: 'endpoints' });
export const CONFIGMAP = resourceRef<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' });
export const SECRET = resourceRef<KubeObject>({ apiVersion: 'v1', kind: 'Secret', plural: 'secrets' });

/** A stored object of a namespaced kind, with its namespace. */
export type InNamespace<T extends KubeObject> = Stored<T> & {
  readonly metadata: StoredMeta & { readonly namespace: string };
};

/** The object with its namespace, or undefined for an object without one. */
export function inNamespace<T extends KubeObject>(obj: Stored<T>): InNamespace<T> | undefined {
  const namespace = obj.metadata.namespace;
  return namespace === undefined ? undefined : { ...obj, metadata: { ...obj.metadata, namespace } };
}

/** Labels of every object this operator creates. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'cdk8s-operator-monitoring' };

/** Names upstream gives the children of a Prometheus / Alertmanager. */
export const names = {
  prometheusStatefulSet: (name: string) => `prometheus-${name}`,
  prometheusService: (name: string) => `prometheus-${name}`,
  prometheusConfigSecret: (name: string) => `prometheus-${name}`,
  prometheusRulesConfigMap: (name: string) => `prometheus-${name}-rulefiles-0`,
  /** File discovery's targets (only with discovery `file`). */
  prometheusTargetsConfigMap: (name: string) => `prometheus-${name}-targets`,
  alertmanagerStatefulSet: (name: string) => `alertmanager-${name}`,
  alertmanagerService: (name: string) => `alertmanager-${name}`,
  /** The Secret an Alertmanager's configuration comes from when `configSecret` is not set (upstream's default). */
  alertmanagerConfigSecret: (name: string) => `alertmanager-${name}`,
};

/** Where the Prometheus pod reads its files. */
export const PATHS = {
  configDir: '/etc/prometheus/config',
  configFile: 'prometheus.yaml',
  rulesDir: '/etc/prometheus/rules',
  /** File discovery's target files (the targets ConfigMap). */
  targetsDir: '/etc/prometheus/targets',
};
