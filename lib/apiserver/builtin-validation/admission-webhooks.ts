import { clientConfigIssues } from './admission-webhook-client';
import {
  duplicateValue,
  goStringList,
  invalidValue,
  listOf,
  recordsOf,
  stringsOf,
  unsupportedValue,
} from './services-field-errors';
import { required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';
import { isDns1035Label, isDns1123Subdomain } from '../../apimachinery/names';
import { matchConditions, namedRule } from '../admission-policy/validate-policy';

/*
 * The apiserver's create-time validation of admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration (pkg/apis/admissionregistration/validation's ValidateValidatingWebhookConfiguration
 * and ValidateMutatingWebhookConfiguration: requireNoSideEffects, requireRecognizedAdmissionReviewVersion and
 * requireUniqueWebhookNames all on at create), on the object as the v1 defaults leave it: failurePolicy Fail,
 * matchPolicy Equivalent, empty selectors, timeoutSeconds 10, a rule's scope `*`, reinvocationPolicy Never and a
 * service's port 443, none of which can be refused. matchConditions are checked on every version: beta and on by
 * default on 1.28 and 1.29 (the AdmissionWebhookMatchConditions gate), GA from 1.30. Measured on 1.28, 1.32 and 1.36
 * (test/apiserver/builtin-validation/admission-differential).
 */

const FAILURE_POLICIES = ['Fail', 'Ignore'] as const;
const MATCH_POLICIES = ['Equivalent', 'Exact'] as const;
/** noSideEffectClasses: what a v1 create allows of `sideEffects` (Unknown and Some were v1beta1's). */
const SIDE_EFFECTS = ['None', 'NoneOnDryRun'] as const;
const REINVOCATION_POLICIES = ['IfNeeded', 'Never'] as const;
/** AcceptedAdmissionReviewVersions. */
const REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;

const has = (v: unknown) => v !== undefined && v !== null;

/** validateValidatingWebhookConfiguration / validateMutatingWebhookConfiguration's loop over `webhooks`. */
function webhookConfigurationIssues(object: any, version: KubernetesVersion, mutating: boolean): Issue[] {
  const issues: Issue[] = [];
  const names = new Set<string>();
  recordsOf(object?.webhooks).forEach((hook, i) => {
    const at = `webhooks[${i}]`;
    issues.push(...webhookIssues(hook, at, version, mutating));
    issues.push(...reviewVersionIssues(hook.admissionReviewVersions, `${at}.admissionReviewVersions`, version));
    if (typeof hook.name === 'string' && hook.name.length > 0) {
      if (names.has(hook.name)) issues.push(duplicateValue(`${at}.name`, hook.name, version));
      names.add(hook.name);
    }
  });
  return issues;
}

/** validateValidatingWebhook / validateMutatingWebhook (the mutating one adds `reinvocationPolicy`). */
function webhookIssues(hook: Record<string, any>, at: string, version: KubernetesVersion, mutating: boolean): Issue[] {
  const issues: Issue[] = [...fullyQualifiedNameIssues(hook.name, `${at}.name`, version)];
  recordsOf(hook.rules).forEach((r, j) => {
    const rule = {
      operations: stringsOf(r.operations),
      apiGroups: stringsOf(r.apiGroups),
      apiVersions: stringsOf(r.apiVersions),
      resources: stringsOf(r.resources),
      ...(has(r.scope) ? { scope: r.scope } : {}),
    } as Parameters<typeof namedRule>[0];
    issues.push(...namedRule(rule, `${at}.rules[${j}]`, version));
  });
  issues.push(...oneOf(hook.failurePolicy, `${at}.failurePolicy`, FAILURE_POLICIES, version));
  issues.push(...oneOf(hook.matchPolicy, `${at}.matchPolicy`, MATCH_POLICIES, version));
  if (!has(hook.sideEffects)) {
    issues.push(required(`${at}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(', ')}`));
  } else {
    issues.push(...oneOf(hook.sideEffects, `${at}.sideEffects`, SIDE_EFFECTS, version));
  }
  const timeout = hook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout > 30 || timeout < 1)) {
    issues.push(
      ...invalidValue(`${at}.timeoutSeconds`, timeout, ['the timeout value must be between 1 and 30 seconds'], version),
    );
  }
  issues.push(...labelSelectorIssues(hook.namespaceSelector, `${at}.namespaceSelector`, version));
  issues.push(...labelSelectorIssues(hook.objectSelector, `${at}.objectSelector`, version));
  if (mutating) {
    issues.push(...oneOf(hook.reinvocationPolicy, `${at}.reinvocationPolicy`, REINVOCATION_POLICIES, version));
  }
  issues.push(...clientConfigIssues(hook.clientConfig, `${at}.clientConfig`, version));
  // validateMatchConditions, the same as a policy's without params (one CEL environment for both)
  const conditions = recordsOf(hook.matchConditions).map((c) => ({
    name: typeof c.name === 'string' ? c.name : '',
    expression: typeof c.expression === 'string' ? c.expression : '',
  }));
  issues.push(...matchConditions(conditions, false, `${at}.matchConditions`, version));
  return issues;
}

/** utilvalidation.IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function fullyQualifiedNameIssues(name: unknown, path: string, version: KubernetesVersion): Issue[] {
  const text = typeof name === 'string' ? name : '';
  if (text === '') return [required(path)];
  const errs = isDns1123Subdomain(text);
  if (errs.length > 0) return invalidValue(path, text, [errs.join(',')], version);
  if (text.split('.').length < 3) {
    return invalidValue(path, text, ['should be a domain with at least three segments separated by dots'], version);
  }
  return [];
}

/** validateAdmissionReviewVersions with requireRecognizedAdmissionReviewVersion. */
function reviewVersionIssues(value: unknown, path: string, version: KubernetesVersion): Issue[] {
  const versions = stringsOf(value).map((v) => (typeof v === 'string' ? v : ''));
  if (versions.length === 0) return [required(path, `must specify one of ${REVIEW_VERSIONS.join(', ')}`)];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  versions.forEach((v, i) => {
    if (seen.has(v)) {
      issues.push(...invalidValue(`${path}[${i}]`, v, ['duplicate version'], version));
      return;
    }
    seen.add(v);
    issues.push(...invalidValue(`${path}[${i}]`, v, isDns1035Label(v), version));
  });
  if (!versions.some((v) => (REVIEW_VERSIONS as readonly string[]).includes(v))) {
    issues.push({
      path,
      message: `Invalid value: ${goStringList(versions, version)}: must include at least one of ${REVIEW_VERSIONS.join(', ')}`,
      value: listOf(value),
    });
  }
  return issues;
}

/** field.NotSupported of a set optional field (null or absent is defaulted, never refused). */
function oneOf(value: unknown, path: string, supported: readonly string[], version: KubernetesVersion): Issue[] {
  if (!has(value) || supported.includes(value as string)) return [];
  return [unsupportedValue(path, value, supported, version)];
}

/** @internal */
export function validatingWebhookConfigurationIssues(object: any, version: KubernetesVersion): Issue[] {
  return webhookConfigurationIssues(object, version, false);
}

/** @internal */
export function mutatingWebhookConfigurationIssues(object: any, version: KubernetesVersion): Issue[] {
  return webhookConfigurationIssues(object, version, true);
}
