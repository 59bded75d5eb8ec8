/**
 * The shape of `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
 * manifests (GA in Kubernetes 1.30; v1beta1 behind the ValidatingAdmissionPolicy feature gate in 1.28 and 1.29).
 */

export interface LabelSelectorRequirementSpec {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

export interface LabelSelectorSpec {
  readonly matchLabels?: { readonly [key: string]: string };
  readonly matchExpressions?: readonly LabelSelectorRequirementSpec[];
}

export interface NamedRuleWithOperationsSpec {
  readonly resourceNames?: readonly string[];
  readonly operations?: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly apiVersions?: readonly string[];
  readonly resources?: readonly string[];
  readonly scope?: string;
}

export interface MatchResourcesSpec {
  readonly namespaceSelector?: LabelSelectorSpec;
  readonly objectSelector?: LabelSelectorSpec;
  readonly resourceRules?: readonly NamedRuleWithOperationsSpec[];
  readonly excludeResourceRules?: readonly NamedRuleWithOperationsSpec[];
  readonly matchPolicy?: string;
}

export interface ValidationSpec {
  readonly expression: string;
  readonly message?: string;
  readonly reason?: string;
  readonly messageExpression?: string;
}

export interface AuditAnnotationSpec {
  readonly key: string;
  readonly valueExpression: string;
}

export interface MatchConditionSpec {
  readonly name: string;
  readonly expression: string;
}

export interface VariableSpec {
  readonly name: string;
  readonly expression: string;
}

export interface ParamKindSpec {
  readonly apiVersion?: string;
  readonly kind?: string;
}

export interface ValidatingAdmissionPolicySpec {
  readonly paramKind?: ParamKindSpec;
  readonly matchConstraints?: MatchResourcesSpec;
  readonly validations?: readonly ValidationSpec[];
  readonly failurePolicy?: string;
  readonly auditAnnotations?: readonly AuditAnnotationSpec[];
  readonly matchConditions?: readonly MatchConditionSpec[];
  readonly variables?: readonly VariableSpec[];
}

export interface ValidatingAdmissionPolicyManifest {
  /** v1 from 1.30; v1beta1 (same fields) in 1.28 and 1.29 behind the ValidatingAdmissionPolicy feature gate. */
  readonly apiVersion: 'admissionregistration.k8s.io/v1' | 'admissionregistration.k8s.io/v1beta1';
  readonly kind: 'ValidatingAdmissionPolicy';
  readonly metadata: {
    readonly name?: string;
    readonly labels?: { readonly [k: string]: string };
    readonly annotations?: { readonly [k: string]: string };
  };
  readonly spec: ValidatingAdmissionPolicySpec;
}

export interface ParamRefSpec {
  readonly name?: string;
  readonly namespace?: string;
  readonly selector?: LabelSelectorSpec;
  readonly parameterNotFoundAction?: string;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  readonly policyName?: string;
  readonly paramRef?: ParamRefSpec;
  readonly matchResources?: MatchResourcesSpec;
  readonly validationActions?: readonly string[];
}

export interface ValidatingAdmissionPolicyBindingManifest {
  /** v1 from 1.30; v1beta1 (same fields) in 1.28 and 1.29 behind the ValidatingAdmissionPolicy feature gate. */
  readonly apiVersion: 'admissionregistration.k8s.io/v1' | 'admissionregistration.k8s.io/v1beta1';
  readonly kind: 'ValidatingAdmissionPolicyBinding';
  readonly metadata: {
    readonly name?: string;
    readonly labels?: { readonly [k: string]: string };
    readonly annotations?: { readonly [k: string]: string };
  };
  readonly spec: ValidatingAdmissionPolicyBindingSpec;
}
