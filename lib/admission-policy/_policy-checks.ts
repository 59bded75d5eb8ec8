import { Issue } from '../apimachinery/issue';
import { compileAdmissionExpression, ValidatingAdmissionPolicyManifest } from '../apiserver/admission-policy';
import { policyDeclarations } from '../apiserver/admission-policy/policy-environment';
import { PolicyTypeCheckDetails } from '../apiserver/admission-policy/type-check-policy';
import { estimateCost } from '../apiserver/cel/cost-estimate';

/**
 * Checks beyond the apiserver's (reported as warnings, marked as ours): the server never reports errors in
 * matchConditions, auditAnnotations and variables once a policy is created, and skips kinds it cannot resolve.
 * @internal
 */
export function ourPolicyChecks(policy: ValidatingAdmissionPolicyManifest, check: PolicyTypeCheckDetails): Issue[] {
  const issues: Issue[] = [];
  const spec = policy.spec;
  if (check.kinds.length === 0) {
    issues.push({
      path: 'spec.matchConstraints.resourceRules',
      severity: 'warning',
      message:
        'not type-checked (ours): no rule names a kind the apiserver can resolve (wildcards, subresources and unknown resources are skipped), so status.typeChecking will say nothing',
    });
  }
  if (!check.paramsResolved) {
    issues.push({
      path: 'spec.paramKind',
      severity: 'warning',
      message:
        "not type-checked (ours): the paramKind has no known schema, so the apiserver's type checker reports every use of `params` as undeclared",
    });
  }
  const typed = (path: string, expression: string, stateless = false) => {
    for (const { gvk, vars } of check.perKind) {
      // match conditions are compiled without variables
      const errorText = compileAdmissionExpression(
        expression,
        stateless ? { ...vars, variables: undefined } : vars,
      ).errorText;
      if (errorText) {
        issues.push({
          path,
          severity: 'warning',
          message: `against ${gvk.group || 'core'}/${gvk.version} ${gvk.kind} (ours; the apiserver never reports this field after create): ${errorText}`,
        });
        return;
      }
    }
  };
  (spec.matchConditions ?? []).forEach((m, i) => typed(`spec.matchConditions[${i}].expression`, m.expression, true));
  (spec.variables ?? []).forEach((v, i) => typed(`spec.variables[${i}].expression`, v.expression));
  (spec.auditAnnotations ?? []).forEach((a, i) =>
    typed(`spec.auditAnnotations[${i}].valueExpression`, a.valueExpression),
  );
  issues.push(...policyCostIssues(policy, check));
  return issues;
}

/** `celconfig.RuntimeCELCostBudget`: what one evaluation of a policy (all its expressions) may cost at admission. */
export const RUNTIME_COST_BUDGET = 10_000_000n;

/**
 * The estimated worst-case cost of one evaluation of the policy (variables, match conditions, validations, message
 * expressions, audit annotations; cel-go's static estimate with the matched kind's size bounds) against the budget
 * the apiserver enforces at admission. The apiserver sets no cost limit at create: an expensive policy is accepted and
 * then fails requests at run time (its failurePolicy applies). @internal
 */
export function policyCostIssues(policy: ValidatingAdmissionPolicyManifest, check: PolicyTypeCheckDetails): Issue[] {
  const spec = policy.spec;
  const expressions = [
    ...(spec.variables ?? []).map((v) => v.expression),
    ...(spec.matchConditions ?? []).map((m) => m.expression),
    ...(spec.validations ?? []).flatMap((v) => [v.expression, ...(v.messageExpression ? [v.messageExpression] : [])]),
    ...(spec.auditAnnotations ?? []).map((a) => a.valueExpression),
  ];
  const issues: Issue[] = [];
  for (const { gvk, vars } of check.perKind) {
    let total = 0n;
    for (const expression of expressions) {
      const c = compileAdmissionExpression(expression, vars);
      if (c.errorText || !c.checked.ast) continue;
      total += estimateCost(c.checked.ast, vars.object, policyDeclarations(vars)).max;
    }
    if (total > RUNTIME_COST_BUDGET) {
      issues.push({
        path: 'spec',
        severity: 'warning',
        message: `estimated cost of one evaluation against ${gvk.group || 'core'}/${gvk.version} ${gvk.kind} is ${total}, over the apiserver's runtime budget of ${RUNTIME_COST_BUDGET} (ours: the apiserver sets no cost limit at create; at admission an evaluation over budget fails and the failurePolicy applies): bound the lists and strings the expressions iterate (maxItems, maxLength) or iterate less`,
      });
      break;
    }
  }
  return issues;
}
