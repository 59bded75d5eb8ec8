import { mutatingWebhookConfigurationIssues, validatingWebhookConfigurationIssues } from './admission-webhooks';
import { BuiltinValidator, BuiltinValidators } from './validator';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import {
  validateMutatingBindingManifest,
  validateMutatingPolicyManifest,
} from '../admission-policy/validate-mutating-policy';
import { validateBindingManifest, validatePolicyManifest } from '../admission-policy/validate-policy';

/*
 * admissionregistration.k8s.io: the webhook configurations (admission-webhooks.ts) and the admission policies and
 * their bindings as raw objects. The policies' checks are the ones the repository's own policy constructs run
 * (lib/admission-policy, measured in test/admission-policy); an object those constructs emit is checked by them, and
 * synth-metadata/served-apis-check leaves it to them so that no problem is printed twice.
 */

/**
 * A policy validator without its `metadata.name` check: the name rules of every built-in object are object-meta.ts's,
 * which builtinObjectIssues runs before the kind's validator (the same line twice otherwise).
 */
function withoutMetadata(validate: (object: any, version: KubernetesVersion) => Issue[]): BuiltinValidator {
  return (object, version) => validate(object, version).filter((i) => !i.path.startsWith('metadata.'));
}

const validatingPolicy = withoutMetadata(validatePolicyManifest);
const validatingBinding = withoutMetadata(validateBindingManifest);
const mutatingPolicy = withoutMetadata(validateMutatingPolicyManifest);
const mutatingBinding = withoutMetadata(validateMutatingBindingManifest);

/** @internal */
export const ADMISSION_VALIDATORS: BuiltinValidators = {
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': validatingWebhookConfigurationIssues,
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': mutatingWebhookConfigurationIssues,
  // v1 from 1.30; v1beta1 (1.28-1.29 behind a gate and --runtime-config) has the same fields and checks
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': validatingPolicy,
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': validatingBinding,
  'admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicy': validatingPolicy,
  'admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicyBinding': validatingBinding,
  // v1 from 1.36 (v1alpha1 and v1beta1 before, behind gates: served by no version's defaults)
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy': mutatingPolicy,
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding': mutatingBinding,
};
