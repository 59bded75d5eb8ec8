import { arr, obj, str } from './pod-spec-common';
import { child, forbidden, index, notSupported, required } from '../../apimachinery/field';
import { tooMany } from '../../apimachinery/field-error-details';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A container's own restartPolicy and restartPolicyRules (validateContainerRestartPolicy), for regular and init
 * containers: sidecars (init containers with `Always`) are beta and on by default from 1.29 (1.28 drops the field);
 * ContainerRestartRules on by default from 1.35 lets any container set Always, OnFailure or Never, with rules on exit
 * codes (the field is 1.36's only here: the decoding of 1.28 and 1.32 refuses it). Measured on 1.28, 1.32 and 1.36.
 */

const POLICIES = ['Always', 'Never', 'OnFailure'];
const ACTIONS = ['Restart', 'RestartAllContainers'];
const OPERATORS = ['In', 'NotIn'];
const MAX_RULES = 20;
const MAX_EXIT_CODES = 255;

/** Sidecars (init containers with restartPolicy Always): from 1.29; 1.28 drops the field. @internal */
export const sidecars = (version: KubernetesVersion) => minorOf(version) >= 29;
/** ContainerRestartRules (on by default from 1.35): any container may have a restartPolicy and rules. */
const restartRules = (version: KubernetesVersion) => minorOf(version) >= 35;

/** The restartPolicy a container keeps on `version` (none where the version drops it). @internal */
export function containerRestartPolicy(c: any, init: boolean, version: KubernetesVersion): unknown {
  return init && !sidecars(version) ? undefined : c.restartPolicy;
}

/**
 * The checks of the restartPolicy and restartPolicyRules of the container at `path` (`…initContainers[0]`): before
 * 1.35, regular containers may not have a policy (`may not be set for non-init containers`) and init containers only
 * `Always`; from 1.35, any container one of the pod's three policies, and a policy whenever it has rules.
 *
 * @internal
 */
export function containerRestartIssues(path: string, c: any, init: boolean, version: KubernetesVersion): Issue[] {
  const policy = containerRestartPolicy(c, init, version);
  const at = child(path, 'restartPolicy');
  if (!restartRules(version)) {
    if (policy == null) return [];
    if (!init) return [forbidden(at, 'may not be set for non-init containers')];
    return policy === 'Always' ? [] : [notSupported(at, policy, ['Always'])];
  }
  const rules = arr(c.restartPolicyRules);
  const issues: Issue[] = [];
  if (policy == null) {
    if (rules.length > 0) issues.push(required(at, 'must specify restartPolicy when restart rules are used'));
  } else if (!POLICIES.includes(policy as string)) {
    issues.push(notSupported(at, policy, POLICIES));
  }
  const rulesPath = child(path, 'restartPolicyRules');
  if (rules.length > MAX_RULES) issues.push({ path: rulesPath, message: tooMany(rules.length, MAX_RULES, version) });
  rules.forEach((raw, i) => {
    const rule = obj(raw);
    const ruleAt = index(rulesPath, i);
    const action = str(rule.action);
    if (!ACTIONS.includes(action)) issues.push(notSupported(child(ruleAt, 'action'), action, ACTIONS));
    const exitCodesAt = child(ruleAt, 'exitCodes');
    if (rule.exitCodes == null) {
      issues.push(required(exitCodesAt, 'must be specified'));
      return;
    }
    const codes = obj(rule.exitCodes);
    const operator = str(codes.operator);
    if (!OPERATORS.includes(operator)) issues.push(notSupported(child(exitCodesAt, 'operator'), operator, OPERATORS));
    const values = arr(codes.values);
    if (values.length > MAX_EXIT_CODES) {
      issues.push({ path: child(exitCodesAt, 'values'), message: tooMany(values.length, MAX_EXIT_CODES, version) });
    }
  });
  return issues;
}
