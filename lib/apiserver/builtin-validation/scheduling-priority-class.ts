import { isRecord, unsupportedValue } from './services-field-errors';
import { forbidden, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * The apiserver's create-time validation of a scheduling.k8s.io/v1 PriorityClass (pkg/apis/scheduling/validation's
 * ValidatePriorityClass; the reserved `system-` names are object-meta.ts's). Measured on 1.28, 1.32 and 1.36
 * (test/apiserver/builtin-validation/cluster-differential): the value check is validation's, so the server answers
 * 422 with the field, before the Priority admission plugin would refuse the same value. Whether another
 * PriorityClass is already `globalDefault` is the Priority plugin's lookup: out of scope.
 */

/** scheduling.HighestUserDefinablePriority. */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;

/** core.PreemptionPolicy values, in ValidatePreemptionPolicy's order. */
const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'] as const;

/** @internal */
export function priorityClassIssues(object: any, version: KubernetesVersion): Issue[] {
  if (!isRecord(object)) return [];
  const issues: Issue[] = [];
  const name = isRecord(object.metadata) ? object.metadata.name : undefined;
  // a `system-` name is checked against the known system classes instead (object-meta.ts)
  const system = typeof name === 'string' && name.startsWith('system-');
  if (!system && typeof object.value === 'number' && object.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    issues.push({
      ...forbidden('value', `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`),
      value: object.value,
    });
  }
  issues.push(...preemptionPolicyIssues(object.preemptionPolicy, 'preemptionPolicy', version));
  return issues;
}

/** core validation's ValidatePreemptionPolicy: a null policy is defaulted, an empty one is missing. */
function preemptionPolicyIssues(policy: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (policy === '') return [required(path)];
  if (typeof policy === 'string' && !(PREEMPTION_POLICIES as readonly string[]).includes(policy)) {
    return [unsupportedValue(path, policy, PREEMPTION_POLICIES, version)];
  }
  return [];
}
