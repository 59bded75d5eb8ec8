// The public API of `cdk8s-operator`: every name below is a semver promise and is described in
// docs/API.md (test/structure/public-api.test.ts fails when the two differ). Everything else in lib/
// is internal; add a name here only together with its documentation.

// The app: all-or-nothing synth, output layout, app-wide features.
export { OperatorApp, OperatorAppProps } from './app/operator-app';
export { OutputLayout } from './app/output-layout';
export { HelmChartOptions } from './app/helm-layout';
export { Warnings } from './synth-metadata/warnings';
export { OutputFiles } from './synth-metadata/output-files';
export type { KubernetesVersionRange } from './synth-metadata/target-versions';

// Schemas and CustomResourceDefinitions.
export {
  Schema,
  SchemaOptions,
  StringSchemaOptions,
  NumberSchemaOptions,
  ObjectSchemaOptions,
  ArraySchemaOptions,
  MapSchemaOptions,
} from './schema/schema';
export { conditionsSchema } from './schema/conditions';
export { JSONSchemaProps, ValidationRule } from './apiserver';
export {
  CustomResourceDefinition,
  CustomResourceDefinitionProps,
  CrdVersionProps,
  CrdConversionWebhook,
  PrinterColumn,
  CrdSubresources,
  ScaleSubresource,
  CrdImportOptions,
  AcknowledgedWarning,
} from './crd/custom-resource-definition';
export { ICustomResourceDefinition } from './crd/icustom-resource-definition';
export {
  ResourceScope,
  CrdManifest,
  CrdSpec,
  CrdNamesSpec,
  CrdVersionSpec,
  PrinterColumnSpec,
  SubresourcesSpec,
  ScaleSubresourceSpec,
} from './apiserver';

// Example (and real) custom resources, checked against their CRD.
export {
  CustomResource,
  CustomResourceProps,
  CustomResourcePrevious,
  TypedCustomResourceProps,
} from './custom-resource/custom-resource';

// Admission policies (ValidatingAdmissionPolicy, Kubernetes 1.30+; MutatingAdmissionPolicy, 1.36+), checked at synth as
// each version of the app's range checks them at create.
export {
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyProps,
  AcknowledgedPolicyWarning,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicyBindingProps,
  ValidatingAdmissionPolicyBindingOptions,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyProps,
  MutationPreviewOfObject,
  MutatingAdmissionPolicyBinding,
  MutatingAdmissionPolicyBindingProps,
  MutatingAdmissionPolicyBindingOptions,
} from './admission-policy';
export {
  MatchResourcesSpec,
  NamedRuleWithOperationsSpec,
  LabelSelectorSpec,
  LabelSelectorRequirementSpec,
  ValidationSpec,
  AuditAnnotationSpec,
  MatchConditionSpec,
  VariableSpec,
  ParamKindSpec,
  ParamRefSpec,
  ValidatingAdmissionPolicyManifest,
  ValidatingAdmissionPolicyBindingManifest,
  MutatingAdmissionPolicyManifest,
  MutatingAdmissionPolicyBindingManifest,
  MutatingAdmissionPolicySpec,
  MutatingAdmissionPolicyBindingSpec,
  MutationSpec,
  validateMutatingPolicyManifest,
  validateMutatingBindingManifest,
  validatePolicyManifest,
  validateBindingManifest,
  typeCheckPolicy,
  clusterResolver,
  ExpressionWarning,
  KindResolver,
  PolicyTypeCheck,
  GroupVersionKind,
} from './apiserver/admission-policy';

// The operator and its parts.
export { Operator, OperatorProps, OperatorShardingOptions } from './operator/operator';
export {
  ControllerContract,
  KindReference,
  KindSelector,
  NetworkPeer,
  ResolvedKind,
} from './operator/controller-contract';
export {
  BoundRole,
  ContractOf,
  ContractSharding,
  NetworkPeerOf,
  ShardAssignment,
  WebhookOf,
  LabelSelectorOf,
  WebhookOperation,
} from './apimachinery/controller-contract';
export {
  OperatorWebhooks,
  OperatorWebhooksProps,
  OperatorWebhookOptions,
  WebhookCertificates,
  WebhookWiring,
} from './operator/operator-webhooks';
export { ContractRules, RbacRule } from './operator/contract-rules';
export { KindInfo } from './apimachinery/kinds';
export { OperatorRbac, OperatorRbacProps, AdditionalRbacRule, RbacGrant } from './operator/operator-rbac';
export { RbacRisk } from './operator/rbac-risk';
export { OperatorDeployment, OperatorDeploymentProps } from './operator/operator-deployment';
export { OperatorNetworkPolicy, OperatorNetworkPolicyProps } from './operator/operator-network-policy';
export { OperatorWebhook, OperatorWebhookProps } from './operator/operator-webhook';
export {
  OperatorMonitoring,
  OperatorMonitoringProps,
  OperatorMonitoringOptions,
  PrometheusAlertRule,
} from './operator/operator-monitoring';

// App features: policy, safe evolution, API docs, synth report.
export { PolicyOptions, ManifestCheck } from './policy/policy-checks';
export { lintRbac } from './policy/rbac-lint';
export { checkPodSecurityRestricted } from './policy/pod-security-restricted';
export { EvolutionOptions, AcknowledgedChange, CrdEvolution, JudgedCrdChange } from './evolution/evolution-guard';
export { CrdBaselines } from './evolution/crd-baseline';
export { CrdChange, CrdChangeKind } from './evolution/crd-change';
export { compareCrdManifests } from './evolution/compare-crds';
export { ApiDocs, DocPage } from './docs/api-docs';
export { renderCrdReference, CrdReferenceOptions } from './docs/crd-reference';
export { renderOperatorDiagram, OperatorDiagramInput } from './docs/operator-diagram';
export {
  collectSynthReport,
  renderSynthReport,
  SynthReport,
  SynthReportOptions,
  ReportFile,
  ReportCrdSize,
} from './report/synth-report';

// Typed imports and the apiserver's checks on their own.
export { generateTypes, GenerateTypesOptions, GeneratedFile } from './codegen/generate-types';
export { writeImports, staleImports } from './codegen/imports-folder';
export { validateCrdManifest, validateValue, ValidateValueOptions, ValueValidation } from './apiserver';
export { Issue, formatIssue } from './apimachinery/issue';
