export { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyProps, AcknowledgedPolicyWarning } from './validating-admission-policy';
export { ValidatingAdmissionPolicyBinding, ValidatingAdmissionPolicyBindingProps, ValidatingAdmissionPolicyBindingOptions } from './validating-admission-policy-binding';
