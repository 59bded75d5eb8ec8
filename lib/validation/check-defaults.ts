import { JSONSchemaProps } from '../schema/json-schema-props';
import { Issue } from './issue';

/**
 * Checks every `default` in a schema the way the apiserver does: valid against its own subschema
 * (including CEL rules), no unknown fields, never under root `metadata`, `apiVersion` or `kind`.
 */
export function checkDefaults(_schema: JSONSchemaProps, _basePath: string): Issue[] {
  return []; // placeholder signature: the value-validation owner replaces this body
}
