export {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyProps,
  AcknowledgedPolicyWarning,
} from './validating-admission-policy';
export {
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicyBindingProps,
  ValidatingAdmissionPolicyBindingOptions,
} from './validating-admission-policy-binding';
export { MutatingAdmissionPolicy, MutatingAdmissionPolicyProps } from './mutating-admission-policy';
export { MutationPreviewOfObject } from './mutation-previews';
export {
  MutatingAdmissionPolicyBinding,
  MutatingAdmissionPolicyBindingProps,
  MutatingAdmissionPolicyBindingOptions,
} from './mutating-admission-policy-binding';
