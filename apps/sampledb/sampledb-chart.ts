import { Chart, ChartProps } from 'cdk8s';
import { Construct } from 'constructs';
import { sampleDbCrd } from './sampledb-crd';
import { storageDefaultsPolicy } from './storage-defaults-policy';
import { DEFAULT_SWITCHOVER_GROUP, switchoverPolicy } from './switchover-policy';
import { controllerImage } from '../../controllers/images';
import { SAMPLEDB_CONTRACT } from '../../controllers/sampledb/contract';
import { ImageOverrideError, PostgresImageOverrides, postgresImageEnv } from '../../controllers/sampledb/images';
import { SampleDB } from '../../imports/database.example.com';
import { Operator, PrometheusAlertRule } from '../../lib';
import { Problems } from '../../lib/synth-metadata/problems';

/** Props of `SampleDbChart`. */
export interface SampleDbChartProps extends ChartProps {
  /**
   * Image of the SampleDB controller (controllers/sampledb), pinned by tag or digest.
   * @default - controllerImage('sampledb') (controllers/images.ts), what `npx projen images` builds
   */
  readonly image?: string;
  /**
   * Namespaces whose SampleDBs the operator runs: a Role in each, so it holds no cluster-wide
   * permission at all (in particular no cluster-wide Secret read).
   * @default ['default']
   */
  readonly watchNamespaces?: readonly string[];
  /**
   * Ports the apiserver endpoints listen on (NetworkPolicy egress).
   * @default - the library's DEFAULT_API_SERVER_PORTS (443, 6443, 8443, 16443)
   */
  readonly apiServerPorts?: readonly number[];
  /**
   * PostgreSQL images for clusters that mirror registries: one repository for every postgres image,
   * and/or a pinned image per major version (it also runs that major's backup, restore and init Jobs).
   * The operator gets them as `SAMPLEDB_POSTGRES_REPOSITORY` / `SAMPLEDB_POSTGRES_IMAGES`
   * (controllers/sampledb/images.ts); a malformed value fails synth, naming it.
   * @default - the pinned official images (postgres:16.4, postgres:17.2, ...)
   */
  readonly postgresImages?: PostgresImageOverrides;
  /**
   * Labels on the ServiceMonitor, the PrometheusRule and the operator's Namespace (e.g. the label your Prometheus'
   * `serviceMonitorSelector` and `serviceMonitorNamespaceSelector` match).
   * @default {}
   */
  readonly monitoringLabels?: Readonly<Record<string, string>>;
  /**
   * The group whose members may request a switchover (set or change `spec.primary`): a ValidatingAdmissionPolicy
   * refuses it to everyone else (Kubernetes 1.30+).
   * @default 'sampledb-admins'
   */
  readonly switchoverGroup?: string;
}

/** Alerts on the controller's per-database metrics (controllers/sampledb/metrics.ts). */
export const SAMPLEDB_ALERTS: readonly PrometheusAlertRule[] = [
  {
    alert: 'SampleDBBackupFailed',
    expr: 'max by (namespace, name) (sampledb_backup_failed) == 1',
    labels: { severity: 'warning' },
    annotations: { summary: 'The most recent backup of SampleDB {{ $labels.namespace }}/{{ $labels.name }} failed' },
  },
  {
    alert: 'SampleDBReplicasUnready',
    expr: 'max by (namespace, name) (sampledb_replicas_desired) - max by (namespace, name) (sampledb_replicas_ready) > 0',
    for: '15m',
    labels: { severity: 'warning' },
    annotations: { summary: 'SampleDB {{ $labels.namespace }}/{{ $labels.name }} has unready replicas' },
  },
  // Anomalies (controllers/sampledb/anomalies.ts): the operator judges each against the SampleDB's spec.anomalies and
  // exports the verdict as sampledb_anomaly{signal}, so a database's own thresholds apply, not one rule-wide number.
  ...(
    [
      [
        'SampleDBReplicationLag',
        'ReplicationLag',
        '1m',
        'a standby of SampleDB {{ $labels.namespace }}/{{ $labels.name }} is further behind than spec.anomalies.maxLagBytes (out of -ro, never promoted)',
      ],
      [
        'SampleDBStandbyDiverged',
        'TimelineDivergence',
        '5m',
        'a standby of SampleDB {{ $labels.namespace }}/{{ $labels.name }} replayed WAL its primary never had and cannot follow it (rewound by the operator unless spec.anomalies.rewindDivergedStandbys is false)',
      ],
      [
        'SampleDBIdleInTransaction',
        'IdleInTransaction',
        '1m',
        'SampleDB {{ $labels.namespace }}/{{ $labels.name }} has sessions idle in a transaction (no timeout configured to terminate them)',
      ],
      [
        'SampleDBLongTransaction',
        'LongTransaction',
        '1m',
        'SampleDB {{ $labels.namespace }}/{{ $labels.name }} has a transaction open longer than spec.anomalies.longTransactionSeconds',
      ],
      [
        'SampleDBXidAgeHigh',
        'XidAge',
        '1m',
        'SampleDB {{ $labels.namespace }}/{{ $labels.name }}: transaction ID age above spec.anomalies.xidAgeThreshold (wraparound risk)',
      ],
      [
        'SampleDBConnectionsSaturated',
        'ConnectionSaturation',
        '1m',
        'SampleDB {{ $labels.namespace }}/{{ $labels.name }} uses spec.anomalies.connectionSaturationPercent of max_connections or more',
      ],
    ] as const
  ).map(([alert, signal, forDuration, summary]): PrometheusAlertRule => ({
    alert,
    expr: `max by (namespace, name) (sampledb_anomaly{signal="${signal}"}) == 1`,
    for: forDuration,
    labels: { severity: 'warning' },
    annotations: { summary },
  })),
  {
    alert: 'SampleDBVolumeNearlyFull',
    expr: 'max by (namespace, name) (sampledb_volume_used_bytes) / max by (namespace, name) (sampledb_volume_capacity_bytes) > 0.9',
    for: '5m',
    labels: { severity: 'warning' },
    annotations: {
      summary:
        'SampleDB {{ $labels.namespace }}/{{ $labels.name }} uses more than 90% of its data volume (storageAutoGrow at its limit, or not configured)',
    },
  },
  {
    // The counter's series exists at 0 from the database's first reconcile (SampleDbMetrics.set), so the first fence
    // is an increase too. No `for`: a fence has already happened; the alert stays for the 15m window.
    alert: 'SampleDBPrimarySelfFenced',
    expr: 'max by (namespace, name) (increase(sampledb_autopilot_actions_total{action="PrimarySelfFenced"}[15m])) > 0',
    labels: { severity: 'critical' },
    annotations: {
      summary:
        'a primary of SampleDB {{ $labels.namespace }}/{{ $labels.name }} stopped itself: it reached neither the apiserver nor a standby (condition IsolationFencing)',
    },
  },
  {
    alert: 'SampleDBDegraded',
    expr: 'max by (namespace, name) (sampledb_degraded) == 1',
    for: '5m',
    labels: { severity: 'warning' },
    annotations: { summary: 'SampleDB {{ $labels.namespace }}/{{ $labels.name }} is Degraded (see its conditions)' },
  },
];

/**
 * The SampleDB operator: the CRD, the controller (contract-derived RBAC, hardened Deployment,
 * NetworkPolicy, ServiceMonitor + PrometheusRule), and example databases checked against the CRD.
 */
export class SampleDbChart extends Chart {
  constructor(scope: Construct, id: string, props: SampleDbChartProps = {}) {
    super(scope, id, props);
    const crd = sampleDbCrd(this);
    const env = this.operatorEnv(props.postgresImages ?? {});
    new Operator(this, 'sampledb-operator', {
      crds: [crd],
      image: props.image ?? controllerImage('sampledb'),
      // The controller's own declaration (controllers/sampledb/contract.ts): it is wired from the same object;
      // RBAC and NetworkPolicy egress to the database pods come from it.
      contract: SAMPLEDB_CONTRACT,
      // Two replicas (one leads; both serve the admission webhooks, whose failurePolicy is Fail), with the
      // PodDisruptionBudget that comes with them: a drain or rollout never leaves SampleDB writes without a webhook.
      replicas: 2,
      watchNamespaces: props.watchNamespaces ?? ['default'],
      apiServerPorts: props.apiServerPorts,
      env,
      monitoring: { labels: { ...props.monitoringLabels }, alerts: SAMPLEDB_ALERTS },
      namespaceLabels: { ...props.monitoringLabels },
    });

    switchoverPolicy(this, crd, props.switchoverGroup ?? DEFAULT_SWITCHOVER_GROUP);
    // the storage defaults inside the apiserver where it serves MutatingAdmissionPolicy (1.36+); the webhook stays
    storageDefaultsPolicy(this, crd, props.watchNamespaces ?? ['default']);

    // The seed document's example.
    new SampleDB(this, 'my-db', {
      metadata: { name: 'my-db', namespace: 'default' },
      spec: { version: '16.4', replicas: 3, backupSchedule: '0 2 * * *', backupRetention: 7 },
    });
    new SampleDB(this, 'scratch-db', {
      metadata: { name: 'scratch-db', namespace: 'default' },
      spec: { version: '17', volumeRetention: 'Retain' },
    });
  }

  /** The operator's image overrides; each malformed value is reported by synth (not thrown), with the others. */
  private operatorEnv(images: PostgresImageOverrides): Record<string, string> {
    try {
      return postgresImageEnv(images);
    } catch (err) {
      if (!(err instanceof ImageOverrideError)) throw err;
      for (const problem of err.message.split('\n')) Problems.of(this).add(`postgresImages: ${problem}`);
      return {};
    }
  }
}
