// What kube-apiserver 1.32 (and its kube-controller-manager) do with a ValidatingAdmissionPolicy on their own:
// the checks at create, and the type checking that fills `status.typeChecking`.
export * from './policy-manifest';
export { validatePolicyManifest, validateBindingManifest } from './validate-policy';
export {
  typeCheckPolicy,
  clusterResolver,
  ExpressionWarning,
  KindResolver,
  PolicyTypeCheck,
} from './type-check-policy';
export { builtinApiVersion, builtinKindFor, builtinSchema, GroupVersionKind, gvkString } from './builtin-openapi';
export { compileAdmissionExpression, CompiledExpression } from './compile';
export { PolicyVariables } from './policy-environment';
export * from './mutating-policy-manifest';
export { validateMutatingPolicyManifest, validateMutatingBindingManifest } from './validate-mutating-policy';
export { typeCheckMutations } from './type-check-mutations';
