import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../apimachinery/kubernetes-versions';
import { compileAdmissionExpression } from '../apiserver/admission-policy/compile';
import { DYN } from '../apiserver/cel/cel-types';
import { perVersion } from '../synth-metadata/target-versions';

/**
 * Compiles each matchCondition of a webhook as kube-apiserver does (the admission CEL environment of
 * `plugin/webhook/matchconditions`: `object` and `oldObject` dyn, `request` and `namespaceObject` typed,
 * the `authorizer` library; the result must be bool) and returns what it would refuse, naming field and value.
 * Each version of `versions` compiles with its own CEL environment (a library a version lacks is an undeclared
 * reference there): a problem of only some versions names them.
 */
export function matchConditionProblems(
  conditions: readonly { readonly name: string; readonly expression: string }[],
  field: string,
  versions: readonly KubernetesVersion[] = [DEFAULT_KUBERNETES_VERSION],
): string[] {
  const out: string[] = [];
  conditions.forEach((c, i) => {
    if (typeof c.expression !== 'string' || c.expression.trim() === '') {
      out.push(`${field}[${i}].expression: must be a CEL expression, got ${JSON.stringify(c.expression)}`);
      return;
    }
    out.push(
      ...perVersion(versions, (version) => {
        const compiled = compileAdmissionExpression(
          c.expression,
          { object: DYN, authorizer: true, requestResource: true },
          version,
        );
        if (compiled.errorText) {
          return [
            `${field}[${i}].expression: does not compile: ${compiled.checked.errors.join('; ')}, got '${c.expression}'`,
          ];
        }
        if (compiled.type.kind !== 'bool' && compiled.type.kind !== 'dyn') {
          return [
            `${field}[${i}].expression: must evaluate to bool, got type ${compiled.type.kind} in '${c.expression}'`,
          ];
        }
        if (compiled.programError) {
          return [
            `${field}[${i}].expression: the apiserver cannot build its program: ${compiled.programError}, got '${c.expression}'`,
          ];
        }
        return [];
      }),
    );
  });
  return out;
}
