// The public API of `cdk8s-operator`: every name below is a semver promise and is described in
// docs/API.md (test/structure/public-api.test.ts fails when the two differ). Everything else in lib/
// is internal; add a name here only together with its documentation.

// The app: all-or-nothing synth, output layout, app-wide features.
export { OperatorApp, type OperatorAppProps } from './app/operator-app';
export { OutputLayout } from './app/output-layout';
export type { HelmChartOptions } from './app/helm-layout';
export { Warnings } from './synth-metadata/warnings';
export { OutputFiles } from './synth-metadata/output-files';
export type { KubernetesVersionRange } from './synth-metadata/target-versions';

// Schemas and CustomResourceDefinitions.
export {
  Schema,
  type SchemaOptions,
  type StringSchemaOptions,
  type NumberSchemaOptions,
  type ObjectSchemaOptions,
  type ArraySchemaOptions,
  type MapSchemaOptions,
} from './schema/schema';
export { conditionsSchema } from './schema/conditions';
export type { JSONSchemaProps, ValidationRule } from './apiserver';
export {
  CustomResourceDefinition,
  type CustomResourceDefinitionProps,
  type CrdVersionProps,
  type CrdConversionWebhook,
  type PrinterColumn,
  type CrdSubresources,
  type ScaleSubresource,
  type CrdImportOptions,
  type AcknowledgedWarning,
} from './crd/custom-resource-definition';
export type { ICustomResourceDefinition } from './crd/icustom-resource-definition';
export {
  ResourceScope,
  type CrdManifest,
  type CrdSpec,
  type CrdNamesSpec,
  type CrdVersionSpec,
  type PrinterColumnSpec,
  type SubresourcesSpec,
  type ScaleSubresourceSpec,
} from './apiserver';

// Example (and real) custom resources, checked against their CRD.
export {
  CustomResource,
  type CustomResourceProps,
  type CustomResourcePrevious,
  type TypedCustomResourceProps,
} from './custom-resource/custom-resource';

// Admission policies (ValidatingAdmissionPolicy, Kubernetes 1.30+; MutatingAdmissionPolicy, 1.36+), checked at synth as
// each version of the app's range checks them at create.
export {
  ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyProps,
  type AcknowledgedPolicyWarning,
  ValidatingAdmissionPolicyBinding,
  type ValidatingAdmissionPolicyBindingProps,
  type ValidatingAdmissionPolicyBindingOptions,
  MutatingAdmissionPolicy,
  type MutatingAdmissionPolicyProps,
  type MutationPreviewOfObject,
  MutatingAdmissionPolicyBinding,
  type MutatingAdmissionPolicyBindingProps,
  type MutatingAdmissionPolicyBindingOptions,
} from './admission-policy';
export {
  type MatchResourcesSpec,
  type NamedRuleWithOperationsSpec,
  type LabelSelectorSpec,
  type LabelSelectorRequirementSpec,
  type ValidationSpec,
  type AuditAnnotationSpec,
  type MatchConditionSpec,
  type VariableSpec,
  type ParamKindSpec,
  type ParamRefSpec,
  type ValidatingAdmissionPolicyManifest,
  type ValidatingAdmissionPolicyBindingManifest,
  type MutatingAdmissionPolicyManifest,
  type MutatingAdmissionPolicyBindingManifest,
  type MutatingAdmissionPolicySpec,
  type MutatingAdmissionPolicyBindingSpec,
  type MutationSpec,
  validateMutatingPolicyManifest,
  validateMutatingBindingManifest,
  validatePolicyManifest,
  validateBindingManifest,
  typeCheckPolicy,
  clusterResolver,
  type ExpressionWarning,
  type KindResolver,
  type PolicyTypeCheck,
  type GroupVersionKind,
} from './apiserver/admission-policy';

// The operator and its parts.
export { Operator, type OperatorProps, type OperatorShardingOptions } from './operator/operator';
export type {
  ControllerContract,
  KindReference,
  KindSelector,
  NetworkPeer,
  ResolvedKind,
} from './operator/controller-contract';
export type {
  BoundRole,
  ContractOf,
  ContractSharding,
  NetworkPeerOf,
  ShardAssignment,
  ShardRanges,
  WebhookOf,
  LabelSelectorOf,
  WebhookOperation,
} from './apimachinery/controller-contract';
export {
  OperatorWebhooks,
  type OperatorWebhooksProps,
  type OperatorWebhookOptions,
  type WebhookCertificates,
  type WebhookWiring,
} from './operator/operator-webhooks';
export type { ContractRules, RbacRule } from './operator/contract-rules';
export type { KindInfo } from './apimachinery/kinds';
export {
  OperatorRbac,
  type OperatorRbacProps,
  type AdditionalRbacRule,
  type RbacGrant,
} from './operator/operator-rbac';
export { RbacRisk } from './operator/rbac-risk';
export { OperatorDeployment, type OperatorDeploymentProps } from './operator/operator-deployment';
export { OperatorNetworkPolicy, type OperatorNetworkPolicyProps } from './operator/operator-network-policy';
export { OperatorWebhook, type OperatorWebhookProps } from './operator/operator-webhook';
export {
  OperatorMonitoring,
  type OperatorMonitoringProps,
  type OperatorMonitoringOptions,
  type PrometheusAlertRule,
} from './operator/operator-monitoring';

// App features: policy, safe evolution, API docs, synth report.
export type { PolicyOptions, ManifestCheck } from './policy/policy-checks';
export { lintRbac } from './policy/rbac-lint';
export { checkPodSecurityRestricted } from './policy/pod-security-restricted';
export type { EvolutionOptions, AcknowledgedChange, CrdEvolution, JudgedCrdChange } from './evolution/evolution-guard';
export { CrdBaselines } from './evolution/crd-baseline';
export { type CrdChange, CrdChangeKind } from './evolution/crd-change';
export { compareCrdManifests } from './evolution/compare-crds';
export { ApiDocs, type DocPage } from './docs/api-docs';
export { renderCrdReference, type CrdReferenceOptions } from './docs/crd-reference';
export { renderOperatorDiagram, type OperatorDiagramInput } from './docs/operator-diagram';
export {
  collectSynthReport,
  renderSynthReport,
  type SynthReport,
  type SynthReportOptions,
  type ReportFile,
  type ReportCrdSize,
} from './report/synth-report';

// Typed imports and the apiserver's checks on their own.
export { generateTypes, type GenerateTypesOptions, type GeneratedFile } from './codegen/generate-types';
export { writeImports, staleImports } from './codegen/imports-folder';
export { validateCrdManifest, validateValue, type ValidateValueOptions, type ValueValidation } from './apiserver';
export { type Issue, formatIssue } from './apimachinery/issue';
