import { pathSegment } from './object-meta-names';
import { invalidValue } from './services-field-errors';
import { BuiltinValidator, BuiltinValidators } from './validator';
import { child, index, invalid, notSupported, required } from '../../apimachinery/field';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';
import { isDns1123Subdomain } from '../../apimachinery/names';

/*
 * RBAC's validation on create (pkg/apis/rbac/validation): a role's rules, a ClusterRole's aggregationRule, a
 * binding's roleRef and subjects. Measured on 1.28, 1.32 and 1.36 (rbac-differential.test.ts).
 */

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** ValidatePolicyRule: verbs always; non-resource URLs (ClusterRoles only) or API groups and resources. */
function ruleIssues(rule: any, namespaced: boolean, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (list(rule?.verbs).length === 0) {
    issues.push(required(child(path, 'verbs'), 'verbs must contain at least one value'));
  }
  const urls = list(rule?.nonResourceURLs);
  if (urls.length > 0) {
    const at = child(path, 'nonResourceURLs');
    if (namespaced) {
      issues.push(
        invalid(at, urls, `${stringList(urls, version)}: namespaced rules cannot apply to non-resource URLs`),
      );
    }
    if (list(rule.apiGroups).length || list(rule.resources).length || list(rule.resourceNames).length) {
      issues.push(
        invalid(
          at,
          urls,
          `${stringList(urls, version)}: rules cannot apply to both regular resources and non-resource URLs`,
        ),
      );
    }
    return issues;
  }
  if (list(rule?.apiGroups).length === 0) {
    issues.push(required(child(path, 'apiGroups'), 'resource rules must supply at least one api group'));
  }
  if (list(rule?.resources).length === 0) {
    issues.push(required(child(path, 'resources'), 'resource rules must supply at least one resource'));
  }
  return issues;
}

/** A `[]string` as the apiserver prints it: `[]string{"a"}` before JSON values (1.34), `["a"]` since. */
function stringList(values: readonly unknown[], version: KubernetesVersion): string {
  const json = fieldValue(values, version);
  return json.startsWith('[]interface {}') ? json.replace('[]interface {}', '[]string') : json;
}

const rulesOf =
  (namespaced: boolean): BuiltinValidator =>
  (object, version) =>
    list(object.rules).flatMap((r, i) => ruleIssues(r, namespaced, index('rules', i), version));

const clusterRoleIssues: BuiltinValidator = (object, version) => {
  const issues = rulesOf(false)(object, version);
  const aggregation = object.aggregationRule;
  if (aggregation !== undefined && aggregation !== null && list(aggregation.clusterRoleSelectors).length === 0) {
    issues.push(
      required(
        'aggregationRule.clusterRoleSelectors',
        'at least one clusterRoleSelector required if aggregationRule is non-nil',
      ),
    );
  }
  // each selector validated, then converted: what fails validation fails the conversion too, reported once more at
  // the selector with the nil selector it returned (measured on 1.28, 1.32 and 1.36)
  list(aggregation?.clusterRoleSelectors).forEach((selector, i) => {
    const at = index('aggregationRule.clusterRoleSelectors', i);
    const selectorIssues = labelSelectorIssues(selector, at, version);
    issues.push(...selectorIssues);
    if (selectorIssues.length > 0) issues.push(...invalidValue(at, null, ['invalid label selector.'], version));
  });
  return issues;
};

/** field.NotSupported in the apiserver's words: `Unsupported value: "User": supported values: "Role", …`. */
function unsupported(path: string, value: unknown, supported: readonly string[], version: KubernetesVersion): Issue {
  const issue = notSupported(path, value, supported);
  return {
    ...issue,
    message: issue.message.replace('Unsupported value: ', `Unsupported value: ${fieldValue(value, version)}: `),
  };
}

/** ValidateRoleBindingSubject. */
function subjectIssues(subject: any, namespaced: boolean, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const name = typeof subject?.name === 'string' ? subject.name : '';
  const apiGroup = typeof subject?.apiGroup === 'string' ? subject.apiGroup : '';
  if (!name) issues.push(required(child(path, 'name')));
  switch (subject?.kind) {
    case 'ServiceAccount':
      if (name) {
        issues.push(
          ...isDns1123Subdomain(name).map((m) =>
            invalid(child(path, 'name'), name, `${fieldValue(name, version)}: ${m}`),
          ),
        );
      }
      if (apiGroup) issues.push(unsupported(child(path, 'apiGroup'), apiGroup, [''], version));
      if (!namespaced && !subject.namespace) issues.push(required(child(path, 'namespace')));
      break;
    case 'User':
    case 'Group':
      // an empty apiGroup is defaulted to rbac.authorization.k8s.io for these kinds
      if (apiGroup && apiGroup !== RBAC_GROUP) {
        issues.push(unsupported(child(path, 'apiGroup'), apiGroup, [RBAC_GROUP], version));
      }
      break;
    default:
      issues.push(unsupported(child(path, 'kind'), subject?.kind ?? '', ['ServiceAccount', 'User', 'Group'], version));
  }
  return issues;
}

const bindingOf =
  (namespaced: boolean): BuiltinValidator =>
  (object, version) => {
    const issues: Issue[] = [];
    const ref = object.roleRef ?? {};
    // an empty apiGroup is defaulted (measured: accepted by 1.28, 1.32 and 1.36)
    if (ref.apiGroup && ref.apiGroup !== RBAC_GROUP) {
      issues.push(unsupported('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP], version));
    }
    const kinds = namespaced ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    if (!kinds.includes(ref.kind)) issues.push(unsupported('roleRef.kind', ref.kind ?? '', kinds, version));
    const name = typeof ref.name === 'string' ? ref.name : '';
    if (!name) {
      issues.push(required('roleRef.name'));
    } else {
      // ValidateRBACName: a path segment
      issues.push(
        ...pathSegment(name, false).map((m) => invalid('roleRef.name', name, `${fieldValue(name, version)}: ${m}`)),
      );
    }
    list(object.subjects).forEach((s, i) =>
      issues.push(...subjectIssues(s, namespaced, index('subjects', i), version)),
    );
    return issues;
  };

/** @internal */
export const RBAC_VALIDATORS: BuiltinValidators = {
  [`${RBAC_GROUP}/v1/Role`]: rulesOf(true),
  [`${RBAC_GROUP}/v1/ClusterRole`]: clusterRoleIssues,
  [`${RBAC_GROUP}/v1/RoleBinding`]: bindingOf(true),
  [`${RBAC_GROUP}/v1/ClusterRoleBinding`]: bindingOf(false),
};
