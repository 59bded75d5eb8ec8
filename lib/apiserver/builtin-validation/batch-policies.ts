import type { JobFeatures } from './batch-job-spec';
import { nonNegativeIssues } from './pod-spec-common';
import { child, duplicate, index, invalid, isObject, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { isQualifiedName } from '../../apimachinery/names';

/*
 * A Job's pod failure, success and pod replacement policies (`validatePodFailurePolicy`, `validateSuccessPolicy`,
 * `validatePodReplacementPolicy`), and the restart policy a pod failure policy requires.
 */

const MAX_RULES = 20;
const MAX_EXIT_CODES = 255;
const MAX_CONDITION_PATTERNS = 20;
const MAX_SUCCEEDED_INDEXES = 64 * 1024;

/** @internal */
export function batchPolicyIssues(
  spec: any,
  path: string,
  features: JobFeatures,
  backoffLimitPerIndex: unknown,
): Issue[] {
  const issues: Issue[] = [];
  const failurePolicy = isObject(spec.podFailurePolicy) ? spec.podFailurePolicy : undefined;
  if (failurePolicy) {
    issues.push(
      ...podFailurePolicyIssues(spec, failurePolicy, child(path, 'podFailurePolicy'), features, backoffLimitPerIndex),
    );
  }
  if (features.successPolicy && isObject(spec.successPolicy)) {
    const at = child(path, 'successPolicy');
    if (spec.completionMode !== 'Indexed') {
      issues.push(invalid(at, spec.successPolicy, 'requires indexed completion mode'));
    } else if (typeof spec.completions === 'number') {
      // without completions (already refused) the apiserver would dereference nothing
      issues.push(...successPolicyIssues(spec.successPolicy, at, spec.completions));
    }
  }
  const replacement = features.podReplacementPolicy ? spec.podReplacementPolicy : undefined;
  if (replacement != null) {
    const at = child(path, 'podReplacementPolicy');
    const supported = failurePolicy ? ['Failed'] : ['Failed', 'TerminatingOrFailed'];
    if (!supported.includes(replacement)) issues.push(notSupported(at, replacement, supported));
  }
  const restartPolicy =
    isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec.restartPolicy : undefined;
  if (failurePolicy && restartPolicy === 'OnFailure') {
    issues.push(
      invalid(
        child(path, 'template', 'spec', 'restartPolicy'),
        restartPolicy,
        'only "Never" is supported when podFailurePolicy is specified',
      ),
    );
  }
  return issues;
}

function podFailurePolicyIssues(
  spec: any,
  policy: any,
  path: string,
  features: JobFeatures,
  backoffLimitPerIndex: unknown,
): Issue[] {
  const rulesPath = child(path, 'rules');
  const rules: unknown[] = Array.isArray(policy.rules) ? policy.rules : [];
  const issues: Issue[] = [];
  if (rules.length > MAX_RULES) issues.push(tooMany(rulesPath, rules.length, MAX_RULES));
  const podSpec = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec : {};
  const containerNames = [...(podSpec.containers ?? []), ...(podSpec.initContainers ?? [])]
    .filter((c: unknown) => isObject(c))
    .map((c: any) => c.name);
  const actions = features.backoffLimitPerIndex
    ? ['Count', 'FailIndex', 'FailJob', 'Ignore']
    : ['Count', 'FailJob', 'Ignore'];
  rules.forEach((r, i) => {
    const rule: any = isObject(r) ? r : {};
    const at = index(rulesPath, i);
    const actionPath = child(at, 'action');
    if (!rule.action) {
      issues.push(required(actionPath, `valid values: [${actions.map((a) => JSON.stringify(a)).join(' ')}]`));
    } else if (rule.action === 'FailIndex' && features.backoffLimitPerIndex) {
      if (backoffLimitPerIndex == null) {
        issues.push(invalid(actionPath, rule.action, 'requires the backoffLimitPerIndex to be set'));
      }
    } else if (!actions.includes(rule.action)) {
      issues.push(notSupported(actionPath, rule.action, actions));
    }
    const onExitCodes = isObject(rule.onExitCodes) ? rule.onExitCodes : undefined;
    const onPodConditions: unknown[] = Array.isArray(rule.onPodConditions) ? rule.onPodConditions : [];
    if (onExitCodes) issues.push(...onExitCodesIssues(onExitCodes, child(at, 'onExitCodes'), containerNames));
    if (onPodConditions.length > 0) {
      issues.push(
        ...onPodConditionsIssues(onPodConditions, child(at, 'onPodConditions'), features.conditionStatusRequired),
      );
    }
    if (onExitCodes && onPodConditions.length > 0) {
      issues.push({
        path: at,
        message: 'Invalid value: specifying both OnExitCodes and OnPodConditions is not supported',
      });
    }
    if (!onExitCodes && onPodConditions.length === 0) {
      issues.push({
        path: at,
        message: 'Invalid value: specifying one of OnExitCodes and OnPodConditions is required',
      });
    }
  });
  return issues;
}

function onExitCodesIssues(req: any, path: string, containerNames: readonly unknown[]): Issue[] {
  const issues: Issue[] = [];
  const operators = ['In', 'NotIn'];
  const operatorPath = child(path, 'operator');
  if (!req.operator) issues.push(required(operatorPath, 'valid values: ["In" "NotIn"]'));
  else if (!operators.includes(req.operator)) issues.push(notSupported(operatorPath, req.operator, operators));
  if (req.containerName != null && !containerNames.includes(req.containerName)) {
    issues.push(
      invalid(
        child(path, 'containerName'),
        req.containerName,
        'must be one of the container or initContainer names in the pod template',
      ),
    );
  }
  const valuesPath = child(path, 'values');
  const values: number[] = Array.isArray(req.values) ? req.values : [];
  if (values.length === 0) issues.push(invalid(valuesPath, values, 'at least one value is required'));
  else if (values.length > MAX_EXIT_CODES) issues.push(tooMany(valuesPath, values.length, MAX_EXIT_CODES));
  const seen = new Set<number>();
  let ordered = true;
  values.forEach((v, j) => {
    if (req.operator === 'In' && v === 0) {
      issues.push(invalid(index(valuesPath, j), v, 'must not be 0 for the In operator'));
    }
    if (seen.has(v)) issues.push(duplicate(index(valuesPath, j), v));
    else seen.add(v);
    if (j > 0 && values[j - 1] > v) ordered = false;
  });
  if (!ordered) issues.push(invalid(valuesPath, values, 'must be ordered'));
  return issues;
}

function onPodConditionsIssues(patterns: readonly unknown[], path: string, statusRequired: boolean): Issue[] {
  const issues: Issue[] = [];
  if (patterns.length > MAX_CONDITION_PATTERNS) issues.push(tooMany(path, patterns.length, MAX_CONDITION_PATTERNS));
  const statuses = ['False', 'True', 'Unknown'];
  patterns.forEach((p, j) => {
    const pattern: any = isObject(p) ? p : {};
    const at = index(path, j);
    issues.push(...isQualifiedName(String(pattern.type ?? '')).map((e) => invalid(child(at, 'type'), pattern.type, e)));
    if (!pattern.status) {
      if (statusRequired) issues.push(required(child(at, 'status'), 'valid values: ["False" "True" "Unknown"]'));
    } else if (!statuses.includes(pattern.status)) {
      issues.push(notSupported(child(at, 'status'), pattern.status, statuses));
    }
  });
  return issues;
}

function successPolicyIssues(policy: any, path: string, completions: number): Issue[] {
  const rulesPath = child(path, 'rules');
  const rules: unknown[] = Array.isArray(policy.rules) ? policy.rules : [];
  const issues: Issue[] = [];
  if (rules.length === 0) {
    issues.push(required(rulesPath, 'at least one rules must be specified when the successPolicy is specified'));
  }
  if (rules.length > MAX_RULES) issues.push(tooMany(rulesPath, rules.length, MAX_RULES));
  rules.forEach((r, i) => {
    const rule: any = isObject(r) ? r : {};
    const at = index(rulesPath, i);
    if (rule.succeededCount == null && rule.succeededIndexes == null) {
      issues.push(required(at, 'at least one of succeededCount or succeededIndexes must be specified'));
    }
    let total = 0;
    if (typeof rule.succeededIndexes === 'string') {
      const indexesPath = child(at, 'succeededIndexes');
      if (rule.succeededIndexes.length > MAX_SUCCEEDED_INDEXES) {
        issues.push({
          path: indexesPath,
          message: `Too long: may not be more than ${MAX_SUCCEEDED_INDEXES} bytes`,
          value: rule.succeededIndexes,
        });
      }
      const parsed = parseIndexes(rule.succeededIndexes, completions);
      if (typeof parsed === 'string') {
        issues.push(invalid(indexesPath, rule.succeededIndexes, `error parsing succeededIndexes: ${parsed}`));
      } else {
        total = parsed;
      }
    }
    if (typeof rule.succeededCount === 'number') {
      const countPath = child(at, 'succeededCount');
      issues.push(...nonNegativeIssues(countPath, rule.succeededCount));
      if (rule.succeededCount > completions) {
        issues.push(
          invalid(
            countPath,
            rule.succeededCount,
            `must be less than or equal to ${completions} (the number of specified completions)`,
          ),
        );
      }
      if (rule.succeededIndexes != null && rule.succeededCount > total) {
        issues.push(
          invalid(
            countPath,
            rule.succeededCount,
            `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`,
          ),
        );
      }
    }
  });
  return issues;
}

/** `validateIndexesFormat`: the number of indexes of `1,3-5`, or why it does not parse. */
function parseIndexes(text: string, completions: number): number | string {
  if (text === '') return 0;
  let last: number | undefined;
  let total = 0;
  for (const interval of text.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2) {
      return `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'`;
    }
    const bounds: number[] = [];
    for (const [i, limit] of limits.entries()) {
      if (!/^[+-]?[0-9]+$/.test(limit)) return `cannot convert string to integer for index: ${JSON.stringify(limit)}`;
      const n = Number(limit);
      if (n >= completions) return `too large index: ${JSON.stringify(limit)}`;
      if (i === 1 && n < bounds[0]) {
        return `first index is greater than the second index in ${JSON.stringify(interval)}`;
      }
      bounds.push(n);
    }
    const [x, y = x] = bounds;
    if (last !== undefined && last >= x) return `non-increasing order, previous: ${last}, current: ${x}`;
    total += y - x + 1;
    last = y;
  }
  return total;
}

function tooMany(path: string, actual: number, max: number): Issue {
  return { path, message: `Too many: ${actual}: must have at most ${max} items`, value: actual };
}
