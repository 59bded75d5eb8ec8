import { AUTOSCALING_VALIDATORS } from './autoscaling';
import { isRecord } from './services-field-errors';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * An autoscaling/v1 HorizontalPodAutoscaler: the apiserver converts it to its internal (v2) form and validates that
 * (ValidateHorizontalPodAutoscaler), so its errors name v2's fields (`targetCPUUtilizationPercentage: 0` is
 * `spec.metrics[0].resource.target.averageUtilization`). Synth converts it likewise and runs autoscaling.ts's v2
 * validator. The metrics and behavior v1 keeps in its `autoscaling.alpha.kubernetes.io/*` annotations are not
 * converted (not checked). Measured on 1.28, 1.32 and 1.36 (cluster-differential).
 */

const v2Validator = AUTOSCALING_VALIDATORS['autoscaling/v2/HorizontalPodAutoscaler'];

/** @internal */
export function horizontalPodAutoscalerV1Issues(object: any, version: KubernetesVersion): Issue[] {
  if (!isRecord(object)) return [];
  const spec = isRecord(object.spec) ? object.spec : {};
  const { targetCPUUtilizationPercentage: cpu, ...rest } = spec;
  // Convert_v1_HorizontalPodAutoscaler_To_autoscaling_HorizontalPodAutoscaler: the CPU target becomes a metric
  const metrics =
    typeof cpu === 'number'
      ? [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: cpu } } }]
      : undefined;
  return v2Validator({ ...object, apiVersion: 'autoscaling/v2', spec: { ...rest, metrics } }, version);
}
