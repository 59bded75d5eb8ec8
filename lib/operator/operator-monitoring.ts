import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { pascalCase } from '../apimachinery/names';
import { Problems } from '../synth-metadata/problems';

/**
 * One Prometheus alerting rule (the subset of prometheus-operator's `PrometheusRule` rule we write;
 * field names as in `imports/prometheusrule-monitoring.coreos.com.ts`).
 */
export interface PrometheusAlertRule {
  readonly alert: string;
  readonly expr: string;
  /** @default - fires at once */
  readonly for?: string;
  /** @default {} */
  readonly labels?: Record<string, string>;
  /** @default {} */
  readonly annotations?: Record<string, string>;
}

/** Options for the operator's monitoring objects. */
export interface OperatorMonitoringOptions {
  /**
   * Labels on the ServiceMonitor and PrometheusRule, e.g. the `release` label your Prometheus selects.
   * @default {}
   */
  readonly labels?: Record<string, string>;
  /** Scrape interval. @default '30s' */
  readonly interval?: string;
  /**
   * Add the default alerts (controller down, reconcile errors, work queue backing up).
   * @default true
   */
  readonly defaultAlerts?: boolean;
  /** More alerts. @default [] */
  readonly alerts?: readonly PrometheusAlertRule[];
}

/** Props of `OperatorMonitoring`. */
export interface OperatorMonitoringProps extends OperatorMonitoringOptions {
  readonly name: string;
  readonly namespace: string;
  /** The controller's metrics Service (port named `metrics`). */
  readonly metricsService: kplus.Service;
}

/**
 * A prometheus-operator ServiceMonitor scraping the controller's metrics Service, and a
 * PrometheusRule with alerts on controller-runtime's metric names. Needs prometheus-operator's
 * CRDs on the cluster (the apply-order layout puts these objects in their own file).
 *
 * The manifests follow the CRDs vendored in `vendor/crds/` (types generated into `imports/`;
 * the tests check the output against both). The library cannot import `imports/` itself: it is
 * outside the package's source root.
 *
 * @see https://prometheus-operator.dev/docs/api-reference/api/#monitoring.coreos.com/v1.ServiceMonitor
 */
export class OperatorMonitoring extends Construct {
  public readonly serviceMonitor: ApiObject;
  public readonly prometheusRule?: ApiObject;

  constructor(scope: Construct, id: string, props: OperatorMonitoringProps) {
    super(scope, id);
    const interval = props.interval ?? '30s';
    if (!/^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$/.test(interval)) {
      Problems.of(this).add(`interval: must be a Prometheus duration like '30s', got '${interval}'`);
    }
    const labels = props.labels ?? {};
    const service = props.metricsService.name;
    this.serviceMonitor = new ApiObject(this, 'ServiceMonitor', {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: props.name, namespace: props.namespace, labels },
      spec: {
        // honorLabels: a controller's own metrics describe other objects by `namespace` (SampleDB's per-database
        // gauges); without it Prometheus renames that label `exported_namespace` and gives every series the
        // controller's namespace (seen on the real node), as kube-state-metrics' ServiceMonitor avoids the same way.
        endpoints: [{ port: 'metrics', path: '/metrics', interval, scheme: 'http', honorLabels: true }],
        namespaceSelector: { matchNames: [props.namespace] },
        selector: { matchLabels: ApiObject.of(props.metricsService).metadata.toJson().labels ?? {} },
      },
    });

    const job = `job="${service}",namespace="${props.namespace}"`;
    const alerts: PrometheusAlertRule[] = [
      ...((props.defaultAlerts ?? true)
        ? [
            {
              alert: `${pascalCase(props.name)}Down`,
              expr: `absent(up{${job}} == 1)`,
              for: '5m',
              labels: { severity: 'critical' },
              annotations: { summary: `${props.name} controller is not being scraped or is down` },
            },
            {
              alert: `${pascalCase(props.name)}ReconcileErrors`,
              expr: `sum(rate(controller_runtime_reconcile_errors_total{${job}}[5m])) > 0`,
              for: '15m',
              labels: { severity: 'warning' },
              annotations: { summary: `${props.name} reconciles keep failing` },
            },
            {
              alert: `${pascalCase(props.name)}WorkQueueBacklog`,
              expr: `max(workqueue_depth{${job}}) > 100`,
              for: '15m',
              labels: { severity: 'warning' },
              annotations: { summary: `${props.name} work queue is backing up` },
            },
          ]
        : []),
      ...(props.alerts ?? []),
    ];
    const names = new Set<string>();
    alerts.forEach((a, i) => {
      if (names.has(a.alert)) Problems.of(this).add(`alerts[${i}].alert: duplicate alert name '${a.alert}'`);
      names.add(a.alert);
    });
    if (alerts.length > 0) {
      this.prometheusRule = new ApiObject(this, 'PrometheusRule', {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'PrometheusRule',
        metadata: { name: props.name, namespace: props.namespace, labels },
        spec: { groups: [{ name: `${props.name}.rules`, rules: alerts }] },
      });
    }
  }
}
