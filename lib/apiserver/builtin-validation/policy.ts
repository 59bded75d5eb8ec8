import { intOrPercentIssues } from './policy-int-or-percent';
import { invalidShown, isRecord, unsupportedValue } from './services-field-errors';
import { BuiltinValidators } from './validator';
import { goJson } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';

/*
 * The apiserver's create-time validation of a policy/v1 PodDisruptionBudget (pkg/apis/policy/validation's
 * ValidatePodDisruptionBudgetSpec). Measured on 1.28, 1.32 and 1.36 (test/apiserver/builtin-validation/
 * policy-differential).
 */

const EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'] as const;

function podDisruptionBudgetIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const has = (v: unknown) => v !== undefined && v !== null;
  if (has(spec.minAvailable) && has(spec.maxUnavailable)) {
    issues.push(
      invalidShown('spec', spec, shownSpec(spec, version), 'minAvailable and maxUnavailable cannot be both set'),
    );
  }
  issues.push(...intOrPercentIssues(spec.minAvailable, 'spec.minAvailable', version));
  issues.push(...intOrPercentIssues(spec.maxUnavailable, 'spec.maxUnavailable', version));
  issues.push(...labelSelectorIssues(spec.selector, 'spec.selector', version));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (typeof policy === 'string' && !(EVICTION_POLICIES as readonly string[]).includes(policy)) {
    issues.push(unsupportedValue('spec.unhealthyPodEvictionPolicy', policy, EVICTION_POLICIES, version));
  }
  return issues;
}

/**
 * The spec as the apiserver prints it in the both-set error: JSON of the Go struct from 1.34; before, Go's `%#v`,
 * whose pointers print as addresses (shown here as `(…)`).
 */
function shownSpec(spec: Record<string, any>, version: KubernetesVersion): string {
  const field = (v: unknown) => (v === undefined ? null : v);
  if (since(version, 'fieldValuesAsJson')) {
    return (
      `{"MinAvailable":${goJson(field(spec.minAvailable))},"Selector":${goJson(field(spec.selector))},` +
      `"MaxUnavailable":${goJson(field(spec.maxUnavailable))},"UnhealthyPodEvictionPolicy":${goJson(field(spec.unhealthyPodEvictionPolicy))}}`
    );
  }
  const pointer = (type: string, v: unknown) => `(*${type})(${v === undefined || v === null ? 'nil' : '…'})`;
  return (
    `policy.PodDisruptionBudgetSpec{MinAvailable:${pointer('intstr.IntOrString', spec.minAvailable)}, ` +
    `Selector:${pointer('v1.LabelSelector', spec.selector)}, MaxUnavailable:${pointer('intstr.IntOrString', spec.maxUnavailable)}, ` +
    `UnhealthyPodEvictionPolicy:${pointer('policy.UnhealthyPodEvictionPolicyType', spec.unhealthyPodEvictionPolicy)}}`
  );
}

/** @internal */
export const POLICY_VALIDATORS: BuiltinValidators = {
  'policy/v1/PodDisruptionBudget': podDisruptionBudgetIssues,
};
