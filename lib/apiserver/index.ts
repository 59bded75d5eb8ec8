// What kube-apiserver v1.32 does with a CustomResourceDefinition and its objects, on its own (no constructs):
// the manifest's shape, the checks of a CRD manifest, and the validation of a value against a version's schema.
// The construct library builds on these; tests and tools may use them directly.

export type { JSONSchemaProps, ValidationRule } from './schema/json-schema-props';
export {
  ResourceScope,
  type CrdManifest,
  type CrdSpec,
  type CrdNamesSpec,
  type CrdVersionSpec,
  type PrinterColumnSpec,
  type SubresourcesSpec,
  type ScaleSubresourceSpec,
} from './crd-manifest';
export { validateCrdManifest } from './crd-validation/validate-crd';
export { validateValue, type ValidateValueOptions, type ValueValidation } from './value-validation/value-validator';
