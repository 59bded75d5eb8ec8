// What kube-apiserver v1.32 does with a CustomResourceDefinition and its objects, on its own (no constructs):
// the manifest's shape, the checks of a CRD manifest, and the validation of a value against a version's schema.
// The construct library builds on these; tests and tools may use them directly.

export { JSONSchemaProps, ValidationRule } from './schema/json-schema-props';
export {
  ResourceScope,
  CrdManifest,
  CrdSpec,
  CrdNamesSpec,
  CrdVersionSpec,
  PrinterColumnSpec,
  SubresourcesSpec,
  ScaleSubresourceSpec,
} from './crd-manifest';
export { validateCrdManifest } from './crd-validation/validate-crd';
export { validateValue, ValidateValueOptions, ValueValidation } from './value-validation/value-validator';
