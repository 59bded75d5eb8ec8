export {
  ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyProps,
  type AcknowledgedPolicyWarning,
} from './validating-admission-policy';
export {
  ValidatingAdmissionPolicyBinding,
  type ValidatingAdmissionPolicyBindingProps,
  type ValidatingAdmissionPolicyBindingOptions,
} from './validating-admission-policy-binding';
export { MutatingAdmissionPolicy, type MutatingAdmissionPolicyProps } from './mutating-admission-policy';
export type { MutationPreviewOfObject } from './mutation-previews';
export {
  MutatingAdmissionPolicyBinding,
  type MutatingAdmissionPolicyBindingProps,
  type MutatingAdmissionPolicyBindingOptions,
} from './mutating-admission-policy-binding';
