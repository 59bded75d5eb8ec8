import { crossVersionReferenceIssues, metricIssues, quantitySign } from './autoscaling-metrics';
import { invalidShown, invalidValue, isRecord, listOf, recordsOf, unsupportedValue } from './services-field-errors';
import { BuiltinValidators } from './validator';
import { forbidden, required } from '../../apimachinery/field';
import { goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * The apiserver's create-time validation of an autoscaling/v2 HorizontalPodAutoscaler
 * (pkg/apis/autoscaling/validation's ValidateHorizontalPodAutoscaler), after its defaults (minReplicas 1, the default
 * CPU metric when none, the default scaling policies when a rule names none). minReplicas 0 needs the HPAScaleToZero
 * feature gate, alpha and off in every supported version: refused. Measured on 1.28, 1.32 and 1.36
 * (test/apiserver/builtin-validation/autoscaling-differential).
 */

const SELECT_POLICIES = ['Disabled', 'Max', 'Min'] as const;
const POLICY_TYPES = ['Percent', 'Pods'] as const;
const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_WINDOW_SECONDS = 3600;
/** `maxReplicas: 0` reads `Required value: must be set and greater than 0` (measured on 1.36; 1.32 says `Invalid value`). */
const MAX_REPLICAS_REQUIRED_WORDING = 36;
/** A scaling rule's tolerance: beta and on by default in 1.35 (HPAConfigurableTolerance; alpha and dropped in 1.33-1.34). */
const TOLERANCE = 35;

function horizontalPodAutoscalerIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const min = typeof spec.minReplicas === 'number' ? spec.minReplicas : 1;
  const max = typeof spec.maxReplicas === 'number' ? spec.maxReplicas : 0;
  if (min < 1) issues.push(...invalidValue('spec.minReplicas', min, ['must be greater than or equal to 1'], version));
  if (max < 1) {
    issues.push(
      minorOf(version) >= MAX_REPLICAS_REQUIRED_WORDING
        ? required('spec.maxReplicas', 'must be set and greater than 0')
        : invalidValue('spec.maxReplicas', max, ['must be greater than 0'], version)[0],
    );
  }
  if (max < min) {
    issues.push(...invalidValue('spec.maxReplicas', max, ['must be greater than or equal to `minReplicas`'], version));
  }
  issues.push(
    ...crossVersionReferenceIssues(spec.scaleTargetRef, 'spec.scaleTargetRef', version, { requireGroup: true }),
  );
  const metrics = listOf(spec.metrics);
  metrics.forEach((m, i) => issues.push(...metricIssues(m, `spec.metrics[${i}]`, version)));
  if (min === 0 && !metrics.some((m) => isRecord(m) && (m.type === 'Object' || m.type === 'External'))) {
    issues.push(
      forbidden(
        'spec.metrics',
        'must specify at least one Object or External metric to support scaling to zero replicas',
      ),
    );
  }
  const behavior = spec.behavior;
  if (isRecord(behavior)) {
    for (const direction of ['scaleUp', 'scaleDown'] as const) {
      if (isRecord(behavior[direction])) {
        issues.push(...scalingRulesIssues(behavior[direction], `spec.behavior.${direction}`, version));
      }
    }
  }
  return issues;
}

function scalingRulesIssues(rules: Record<string, any>, at: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number') {
    if (window < 0) {
      issues.push(
        ...invalidValue(`${at}.stabilizationWindowSeconds`, window, ['must be greater than or equal to zero'], version),
      );
    }
    if (window > MAX_STABILIZATION_WINDOW_SECONDS) {
      issues.push(
        ...invalidValue(
          `${at}.stabilizationWindowSeconds`,
          window,
          [`must be less than or equal to ${MAX_STABILIZATION_WINDOW_SECONDS}`],
          version,
        ),
      );
    }
  }
  const select = rules.selectPolicy;
  if (typeof select === 'string' && !(SELECT_POLICIES as readonly string[]).includes(select)) {
    issues.push(unsupportedValue(`${at}.selectPolicy`, select, SELECT_POLICIES, version));
  }
  // absent policies are defaulted; an empty list is not
  if (Array.isArray(rules.policies) && rules.policies.length === 0) {
    issues.push(required(`${at}.policies`, 'must specify at least one Policy'));
  }
  recordsOf(rules.policies).forEach((p, i) => {
    const pAt = `${at}.policies[${i}]`;
    if (!(POLICY_TYPES as readonly unknown[]).includes(p.type)) {
      issues.push(unsupportedValue(`${pAt}.type`, p.type ?? '', POLICY_TYPES, version));
    }
    const value = typeof p.value === 'number' ? p.value : 0;
    if (value <= 0) issues.push(...invalidValue(`${pAt}.value`, value, ['must be greater than zero'], version));
    const period = typeof p.periodSeconds === 'number' ? p.periodSeconds : 0;
    if (period <= 0) {
      issues.push(...invalidValue(`${pAt}.periodSeconds`, period, ['must be greater than zero'], version));
    }
    if (period > MAX_PERIOD_SECONDS) {
      issues.push(
        ...invalidValue(
          `${pAt}.periodSeconds`,
          period,
          [`must be less than or equal to ${MAX_PERIOD_SECONDS}`],
          version,
        ),
      );
    }
  });
  const tolerance = rules.tolerance;
  if (minorOf(version) >= TOLERANCE && (quantitySign(tolerance) ?? 0n) < 0n) {
    issues.push(
      invalidShown(`${at}.tolerance`, tolerance, goQuote(String(tolerance)), 'must be greater than or equal to 0'),
    );
  }
  return issues;
}

/** @internal */
export const AUTOSCALING_VALIDATORS: BuiltinValidators = {
  'autoscaling/v2/HorizontalPodAutoscaler': horizontalPodAutoscalerIssues,
};
