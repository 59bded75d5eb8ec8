import { JSONSchemaProps } from '../schema/json-schema-props';
import { Issue } from '../validation/issue';

/**
 * Static checks of every `x-kubernetes-validations` entry in a CRD version's schema.
 * `basePath` is the field path of `schema` (e.g. `spec.versions[0].schema.openAPIV3Schema`).
 */
export function checkCelRules(_schema: JSONSchemaProps, _basePath: string): Issue[] {
  return []; // placeholder signature: the CEL owner replaces this body
}
