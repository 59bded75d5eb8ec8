import { gvkString } from './builtin-openapi';
import { compileAdmissionExpression } from './compile';
import { MutatingAdmissionPolicyManifest } from './mutating-policy-manifest';
import { mutationStructs } from './mutation-types';
import { KindResolver, typeCheckPolicyDetails } from './type-check-policy';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { CelType } from '../cel/cel-types';

/**
 * Ours (the apiserver has no type checking for mutating policies: at create every `Object…` type is open, and there
 * is no status controller): each mutation's expression compiled once per matched kind (resolved as the validating
 * policy's status controller resolves them: the app's CRDs, the built-in kinds' OpenAPI) with `object` of the kind's
 * type and the `Object…` types the kind's own (`Object.spec{replicaz: 1}` is an undefined field, `Object.spec{replicas:
 * 'x'}` a type mismatch), and the result checked (`Object`, `list(JSONPatch)`). Variables are typed per kind too.
 */
export function typeCheckMutations(
  policy: MutatingAdmissionPolicyManifest,
  resolver: KindResolver,
  version: KubernetesVersion,
): Issue[] {
  const spec = policy.spec ?? {};
  // the kinds and per-kind declarations, resolved as for a validating policy with the same constraints and variables
  const details = typeCheckPolicyDetails(
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: policy.metadata,
      spec: {
        matchConstraints: spec.matchConstraints,
        paramKind: spec.paramKind,
        variables: spec.variables,
        validations: [],
      },
    },
    resolver,
    version,
  );
  const issues: Issue[] = [];
  (spec.mutations ?? []).forEach((m, i) => {
    const applyConfiguration = m.patchType === 'ApplyConfiguration';
    const field = applyConfiguration ? 'applyConfiguration' : 'jsonPatch';
    const expression = m[field]?.expression;
    if (!expression) return;
    for (const { gvk, vars } of details.perKind) {
      const c = compileAdmissionExpression(expression, { ...vars, structs: mutationStructs(vars.object) }, version);
      const wrongResult =
        !c.errorText &&
        (applyConfiguration
          ? !isObject(c.type, 'Object')
          : !(c.type.kind === 'list' && isObject(c.type.elem, 'JSONPatch')));
      if (c.errorText || wrongResult) {
        issues.push({
          path: `spec.mutations[${i}].${field}.expression`,
          severity: 'warning',
          message: `against ${gvkString(gvk)} (ours: the apiserver does not type-check mutating policies; at admission this fails and the failurePolicy applies): ${c.errorText ?? `evaluates to ${c.type.kind}`}`,
        });
        return;
      }
    }
  });
  return issues;
}

function isObject(t: CelType, name: string): boolean {
  return t.kind === 'object' && t.name === name;
}
