import { ApiObject, Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { monitoringCrds } from './monitoring-crds';
import { controllerImage } from '../../controllers/images';
import { MONITORING_CONTRACT } from '../../controllers/monitoring/contract';
import { CustomResource, Operator } from '../../lib';
import { RESTRICTED_NAMESPACE_LABELS } from '../../lib/operator/operator';

/** The label the demo's Prometheus selects: on ServiceMonitors, PrometheusRules and their namespaces. */
export const DEMO_MONITORING_LABELS: Readonly<Record<string, string>> = {
  'monitoring.cdk8s-operator.io/prometheus': 'demo',
};

/** Props of `MonitoringChart`. */
export interface MonitoringChartProps extends ChartProps {
  /**
   * Image of the monitoring operator (controllers/monitoring), which also holds the config-reloader sidecar
   * and the alert receiver.
   * @default - controllerImage('monitoring') (controllers/images.ts), what `npx projen images` builds
   */
  readonly image?: string;
  /** Namespace of the Prometheus, the Alertmanager and the receiver. @default 'monitoring' */
  readonly namespace?: string;
  /**
   * How the Prometheus finds its targets: `file` (the operator resolves Endpoints, for Debian's Prometheus build,
   * which the real node runs) or `kubernetes` (upstream's `kubernetes_sd_configs`, for upstream's images).
   * @default 'file'
   */
  readonly discovery?: 'file' | 'kubernetes';
  /** Labels the Prometheus selects ServiceMonitors, PrometheusRules and their namespaces by. @default DEMO_MONITORING_LABELS */
  readonly selectLabels?: Readonly<Record<string, string>>;
}

const RECEIVER_PORT = 8080;

/**
 * The monitoring stack of the demo: prometheus-operator's CRDs (unchanged), the monitoring operator
 * (controllers/monitoring), a Prometheus that selects the demo operators' ServiceMonitors and PrometheusRules
 * (by label, in namespaces carrying the same label), an Alertmanager, and a webhook receiver for its alerts.
 */
export class MonitoringChart extends Chart {
  constructor(scope: Construct, id: string, props: MonitoringChartProps = {}) {
    super(scope, id, props);
    const crds = monitoringCrds(this);
    const image = props.image ?? controllerImage('monitoring');
    const namespace = props.namespace ?? 'monitoring';
    const select = { ...(props.selectLabels ?? DEMO_MONITORING_LABELS) };

    new Operator(this, 'monitoring-operator', {
      crds: [crds.prometheus, crds.alertmanager, crds.serviceMonitor, crds.prometheusRule],
      image,
      contract: MONITORING_CONTRACT,
      // The Prometheus image here is Debian's build, which has no Kubernetes discovery: the operator discovers
      // the targets itself (controllers/monitoring/discovery.ts). Set 'kubernetes' for upstream's images.
      env: { MONITORING_RELOADER_IMAGE: image, MONITORING_DISCOVERY: props.discovery ?? 'file' },
      // Its own metrics are scraped by the Prometheus below.
      namespaceLabels: select,
      monitoring: { labels: select },
    });

    new ApiObject(this, 'Namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: { ...select, ...RESTRICTED_NAMESPACE_LABELS } },
    });

    // Prometheus' service discovery reads Services, Endpoints and Pods of the namespaces it scrapes.
    const account = new ApiObject(this, 'PrometheusServiceAccount', {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: 'prometheus', namespace },
    });
    new ApiObject(this, 'PrometheusClusterRole', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `prometheus-${namespace}` },
      rules: [{ apiGroups: [''], resources: ['services', 'endpoints', 'pods'], verbs: ['get', 'list', 'watch'] }],
    });
    new ApiObject(this, 'PrometheusClusterRoleBinding', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `prometheus-${namespace}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `prometheus-${namespace}` },
      subjects: [{ kind: 'ServiceAccount', name: account.name, namespace }],
    });

    new CustomResource(this, 'Prometheus', {
      crd: crds.prometheus,
      metadata: { name: 'main', namespace },
      spec: {
        replicas: 1,
        serviceAccountName: account.name,
        serviceMonitorSelector: { matchLabels: select },
        serviceMonitorNamespaceSelector: { matchLabels: select },
        ruleSelector: { matchLabels: select },
        ruleNamespaceSelector: { matchLabels: select },
        retention: '24h',
        scrapeInterval: '15s',
        evaluationInterval: '15s',
        externalLabels: { cluster: 'demo' },
        resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '512Mi' } },
        alerting: { alertmanagers: [{ name: 'alertmanager-main', namespace, port: 'web', apiVersion: 'v2' }] },
      },
    });

    const receiverUrl = `http://alert-receiver.${namespace}.svc.cluster.local:${RECEIVER_PORT}/alerts`;
    new ApiObject(this, 'AlertmanagerConfig', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'alertmanager-main', namespace },
      type: 'Opaque',
      stringData: {
        'alertmanager.yaml': [
          'route:',
          '  receiver: webhook',
          "  group_by: ['alertname', 'namespace']",
          '  group_wait: 5s',
          '  group_interval: 10s',
          '  repeat_interval: 1h',
          'receivers:',
          '  - name: webhook',
          '    webhook_configs:',
          `      - url: ${receiverUrl}`,
          '        send_resolved: true',
          '',
        ].join('\n'),
      },
    });
    new CustomResource(this, 'Alertmanager', {
      crd: crds.alertmanager,
      metadata: { name: 'main', namespace },
      spec: { replicas: 1, resources: { requests: { cpu: '10m', memory: '32Mi' }, limits: { memory: '128Mi' } } },
    });

    const receiverLabels = { 'app.kubernetes.io/name': 'alert-receiver', 'app.kubernetes.io/part-of': 'monitoring' };
    new ApiObject(this, 'ReceiverDeployment', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'alert-receiver', namespace, labels: receiverLabels },
      spec: {
        replicas: 1,
        selector: { matchLabels: receiverLabels },
        template: {
          metadata: { labels: receiverLabels },
          spec: {
            automountServiceAccountToken: false,
            securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } },
            containers: [
              {
                name: 'receiver',
                image,
                imagePullPolicy: 'IfNotPresent',
                command: ['/nodejs/bin/node', '/app/receiver.js', `--port=${RECEIVER_PORT}`],
                ports: [{ name: 'http', containerPort: RECEIVER_PORT }],
                readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
                resources: { requests: { cpu: '5m', memory: '32Mi' }, limits: { cpu: '100m', memory: '64Mi' } },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ['ALL'] },
                },
              },
            ],
          },
        },
      },
    });
    new ApiObject(this, 'ReceiverService', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'alert-receiver', namespace, labels: receiverLabels },
      spec: { selector: receiverLabels, ports: [{ name: 'http', port: RECEIVER_PORT, targetPort: 'http' }] },
    });
  }
}
