import { Issue } from '../apimachinery/issue';
import { compileAdmissionExpression, ValidatingAdmissionPolicyManifest } from '../apiserver/admission-policy';
import { PolicyTypeCheckDetails } from '../apiserver/admission-policy/type-check-policy';

/**
 * Checks beyond the apiserver's (reported as warnings, marked as ours): the server never reports errors in
 * matchConditions, auditAnnotations and variables once a policy is created, and skips kinds it cannot resolve.
 * @internal
 */
export function ourPolicyChecks(policy: ValidatingAdmissionPolicyManifest, check: PolicyTypeCheckDetails): Issue[] {
  const issues: Issue[] = [];
  const spec = policy.spec;
  if (check.kinds.length === 0) {
    issues.push({ path: 'spec.matchConstraints.resourceRules', severity: 'warning', message: 'not type-checked (ours): no rule names a kind the apiserver can resolve (wildcards, subresources and unknown resources are skipped), so status.typeChecking will say nothing' });
  }
  if (!check.paramsResolved) {
    issues.push({ path: 'spec.paramKind', severity: 'warning', message: 'not type-checked (ours): the paramKind has no known schema, so the apiserver\'s type checker reports every use of `params` as undeclared' });
  }
  const typed = (path: string, expression: string, stateless = false) => {
    for (const { gvk, vars } of check.perKind) {
      // match conditions are compiled without variables
      const errorText = compileAdmissionExpression(expression, stateless ? { ...vars, variables: undefined } : vars).errorText;
      if (errorText) {
        issues.push({ path, severity: 'warning', message: `against ${gvk.group || 'core'}/${gvk.version} ${gvk.kind} (ours; the apiserver never reports this field after create): ${errorText}` });
        return;
      }
    }
  };
  (spec.matchConditions ?? []).forEach((m, i) => typed(`spec.matchConditions[${i}].expression`, m.expression, true));
  (spec.variables ?? []).forEach((v, i) => typed(`spec.variables[${i}].expression`, v.expression));
  (spec.auditAnnotations ?? []).forEach((a, i) => typed(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression));
  return issues;
}
