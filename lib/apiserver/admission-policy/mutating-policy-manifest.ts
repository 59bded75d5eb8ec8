import { MatchConditionSpec, MatchResourcesSpec, ParamKindSpec, ParamRefSpec, VariableSpec } from './policy-manifest';

/**
 * The shape of `admissionregistration.k8s.io/v1` MutatingAdmissionPolicy and MutatingAdmissionPolicyBinding
 * manifests (GA and served by default in Kubernetes 1.36; `v1beta1` in 1.34 and 1.35 and `v1alpha1` from 1.32, each
 * behind the MutatingAdmissionPolicy feature gate).
 */

export interface MutationSpec {
  /** `ApplyConfiguration` (merged with server-side apply's rules) or `JSONPatch`. */
  readonly patchType?: string;
  /** A CEL expression building an `Object{…}` apply configuration. */
  readonly applyConfiguration?: { readonly expression?: string };
  /** A CEL expression building a list of `JSONPatch{op, path, from, value}`. */
  readonly jsonPatch?: { readonly expression?: string };
}

export interface MutatingAdmissionPolicySpec {
  readonly paramKind?: ParamKindSpec;
  readonly matchConstraints?: MatchResourcesSpec;
  readonly variables?: readonly VariableSpec[];
  readonly mutations?: readonly MutationSpec[];
  readonly failurePolicy?: string;
  readonly matchConditions?: readonly MatchConditionSpec[];
  /** `Never` or `IfNeeded`; required. */
  readonly reinvocationPolicy?: string;
}

export interface MutatingAdmissionPolicyManifest {
  readonly apiVersion: 'admissionregistration.k8s.io/v1' | 'admissionregistration.k8s.io/v1beta1';
  readonly kind: 'MutatingAdmissionPolicy';
  readonly metadata: {
    readonly name?: string;
    readonly labels?: { readonly [k: string]: string };
    readonly annotations?: { readonly [k: string]: string };
  };
  readonly spec: MutatingAdmissionPolicySpec;
}

export interface MutatingAdmissionPolicyBindingSpec {
  readonly policyName?: string;
  readonly paramRef?: ParamRefSpec;
  readonly matchResources?: MatchResourcesSpec;
}

export interface MutatingAdmissionPolicyBindingManifest {
  readonly apiVersion: 'admissionregistration.k8s.io/v1' | 'admissionregistration.k8s.io/v1beta1';
  readonly kind: 'MutatingAdmissionPolicyBinding';
  readonly metadata: {
    readonly name?: string;
    readonly labels?: { readonly [k: string]: string };
    readonly annotations?: { readonly [k: string]: string };
  };
  readonly spec: MutatingAdmissionPolicyBindingSpec;
}
