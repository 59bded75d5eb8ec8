// What kube-apiserver 1.32 (and its kube-controller-manager) do with a ValidatingAdmissionPolicy on their own:
// the checks at create, and the type checking that fills `status.typeChecking`.
export type * from './policy-manifest';
export { validatePolicyManifest, validateBindingManifest } from './validate-policy';
export {
  typeCheckPolicy,
  clusterResolver,
  type ExpressionWarning,
  type KindResolver,
  type PolicyTypeCheck,
} from './type-check-policy';
export { builtinApiVersion, builtinKindFor, builtinSchema, type GroupVersionKind, gvkString } from './builtin-openapi';
export { compileAdmissionExpression, type CompiledExpression } from './compile';
export type { PolicyVariables } from './policy-environment';
export type * from './mutating-policy-manifest';
export { validateMutatingPolicyManifest, validateMutatingBindingManifest } from './validate-mutating-policy';
export { typeCheckMutations } from './type-check-mutations';
