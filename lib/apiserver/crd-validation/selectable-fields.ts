import { child, duplicate, index, invalid, isObject, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { resolveSchemaPath } from '../schema/schema-path';

/** At most this many distinct selectable fields per version (`MaxSelectableFields`). */
export const MAX_SELECTABLE_FIELDS = 8;

/**
 * `selectableFields` of one CRD version (Kubernetes >= 1.30): each a path into the schema (no array
 * indexing), not under `metadata`, to a string, boolean or integer field, unique, at most 8.
 * `basePath` is the field path of the version.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#crd-selectable-fields
 */
export function checkSelectableFields(fields: unknown, schema: JSONSchemaProps | undefined, basePath: string): Issue[] {
  if (!Array.isArray(fields) || fields.length === 0) return [];
  const path = child(basePath, 'selectableFields');
  if (!schema) {
    return [invalid(path, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included')];
  }
  const issues: Issue[] = [];
  const seen = new Set<string>();
  fields.forEach((field, i) => {
    const fieldPath = child(index(path, i), 'jsonPath');
    const jsonPath = isObject(field) ? field.jsonPath : undefined;
    if (!jsonPath) {
      issues.push(required(fieldPath));
      return;
    }
    if (/\[/.test(String(jsonPath))) {
      issues.push(invalid(fieldPath, jsonPath, 'is an invalid path: array notation is not allowed'));
      return;
    }
    const found = resolveSchemaPath(schema, String(jsonPath));
    if (found.kind !== 'found') {
      issues.push(
        invalid(
          fieldPath,
          jsonPath,
          `is an invalid path: ${found.kind === 'missing' ? `no ${found.missing} in the schema` : 'unsupported syntax'}`,
        ),
      );
      return;
    }
    if (String(jsonPath).startsWith('.metadata.') || jsonPath === '.metadata') {
      issues.push(invalid(fieldPath, jsonPath, 'must not point to fields in metadata'));
    }
    if (!found.schema || !['string', 'boolean', 'integer'].includes(String(found.schema.type))) {
      issues.push(
        invalid(
          fieldPath,
          jsonPath,
          'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
        ),
      );
    }
    if (seen.has(String(jsonPath))) issues.push(duplicate(fieldPath, jsonPath));
    seen.add(String(jsonPath));
  });
  if (seen.size > MAX_SELECTABLE_FIELDS) {
    issues.push({ path, message: `Too many: ${seen.size}: must have at most ${MAX_SELECTABLE_FIELDS} items` });
  }
  return issues;
}
