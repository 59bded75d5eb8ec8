import { compileAdmissionExpression } from '../apiserver/admission-policy/compile';
import { DYN } from '../apiserver/cel/cel-types';

/**
 * Compiles each matchCondition of a webhook as kube-apiserver does (the admission CEL environment of
 * `plugin/webhook/matchconditions`: `object` and `oldObject` dyn, `request` and `namespaceObject` typed,
 * the `authorizer` library; the result must be bool) and returns what it would refuse, naming field and value.
 */
export function matchConditionProblems(conditions: readonly { readonly name: string; readonly expression: string }[], field: string): string[] {
  const out: string[] = [];
  conditions.forEach((c, i) => {
    if (typeof c.expression !== 'string' || c.expression.trim() === '') {
      out.push(`${field}[${i}].expression: must be a CEL expression, got ${JSON.stringify(c.expression)}`);
      return;
    }
    const compiled = compileAdmissionExpression(c.expression, { object: DYN, authorizer: true, requestResource: true });
    if (compiled.checked.errors.length) out.push(`${field}[${i}].expression: does not compile: ${compiled.checked.errors.join('; ')}, got '${c.expression}'`);
    else if (compiled.type.kind !== 'bool' && compiled.type.kind !== 'dyn') out.push(`${field}[${i}].expression: must evaluate to bool, got type ${compiled.type.kind} in '${c.expression}'`);
  });
  return out;
}
