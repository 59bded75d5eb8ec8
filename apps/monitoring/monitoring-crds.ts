import * as path from 'path';
import { Construct } from 'constructs';
import { CustomResourceDefinition } from '../../lib';

/** Where prometheus-operator's CRDs are vendored, unchanged (vendor/crds/README.md). */
export const MONITORING_CRD_DIR = path.join(__dirname, '..', '..', 'vendor', 'crds', 'prometheus-operator-v0.93.0');

/** The four monitoring.coreos.com/v1 CRDs the monitoring operator reconciles, from upstream's files as they are. */
export interface MonitoringCrds {
  readonly prometheus: CustomResourceDefinition;
  readonly alertmanager: CustomResourceDefinition;
  readonly serviceMonitor: CustomResourceDefinition;
  readonly prometheusRule: CustomResourceDefinition;
}

/** Imports the vendored CRDs (checked at synth as the apiserver checks them, emitted unchanged). */
export function monitoringCrds(scope: Construct): MonitoringCrds {
  const file = (plural: string) => path.join(MONITORING_CRD_DIR, `monitoring.coreos.com_${plural}.yaml`);
  // dist/APPLY.md applies CRDs server-side, which has no last-applied-configuration annotation to outgrow.
  const serverSide = {
    acknowledgedWarnings: [
      {
        path: 'metadata.annotations',
        reason: 'applied with kubectl apply --server-side (dist/APPLY.md); upstream ships it this size',
      },
    ],
  };
  return {
    prometheus: CustomResourceDefinition.fromFile(scope, 'PrometheusDefinition', file('prometheuses'), serverSide),
    alertmanager: CustomResourceDefinition.fromFile(scope, 'AlertmanagerDefinition', file('alertmanagers'), serverSide),
    serviceMonitor: CustomResourceDefinition.fromFile(scope, 'ServiceMonitorDefinition', file('servicemonitors')),
    prometheusRule: CustomResourceDefinition.fromFile(scope, 'PrometheusRuleDefinition', file('prometheusrules')),
  };
}
