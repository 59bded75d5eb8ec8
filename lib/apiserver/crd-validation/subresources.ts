import { child, invalid, isObject, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { JSONSchemaProps } from '../schema/json-schema-props';
import { resolveSchemaPath } from '../schema/schema-path';

/** Root schema keys the apiserver allows when the status subresource is enabled (`allowedFieldsAtRootSchema`). */
const ALLOWED_AT_ROOT_WITH_STATUS = [
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
];

/**
 * `subresources` of one CRD version: the root schema restrictions that come with the status subresource,
 * and the scale subresource's JSON paths (syntax as the apiserver checks it, plus our own check that each
 * path exists in the schema with the type the scale endpoint reads: integer replicas, string selector).
 * `basePath` is the field path of the version, e.g. `spec.versions[0]`.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#subresources
 */
export function checkSubresources(
  subresources: unknown,
  schema: JSONSchemaProps | undefined,
  basePath: string,
): Issue[] {
  if (!isObject(subresources)) return [];
  const issues: Issue[] = [];
  if (subresources.status !== undefined && subresources.status !== null && isObject(schema)) {
    issues.push(...checkRootWithStatus(schema, child(basePath, 'schema', 'openAPIV3Schema')));
  }
  if (isObject(subresources.scale)) {
    issues.push(...checkScale(subresources.scale, schema, child(basePath, 'subresources', 'scale')));
  }
  return issues;
}

function checkRootWithStatus(schema: JSONSchemaProps, path: string): Issue[] {
  const issues: Issue[] = [];
  if (schema.type !== undefined && schema.type !== 'object') {
    issues.push(
      invalid(
        child(path, 'type'),
        schema.type,
        'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
      ),
    );
  }
  const disallowed = Object.keys(schema).filter((k) => !ALLOWED_AT_ROOT_WITH_STATUS.includes(k) && !isZero(schema[k]));
  if (disallowed.length > 0) {
    issues.push(
      invalid(
        path,
        disallowed,
        `only ${ALLOWED_AT_ROOT_WITH_STATUS.join(', ')} are allowed at the root of the schema if the status subresource is enabled`,
      ),
    );
  }
  return issues;
}

/** Go skips zero values when it checks the root keys: `nullable: false` is no key at all. */
function isZero(value: unknown): boolean {
  return value === false || value === '' || value === undefined || value === null;
}

function checkScale(scale: Record<string, any>, schema: JSONSchemaProps | undefined, path: string): Issue[] {
  const issues: Issue[] = [];
  const paths: Array<[string, string[], string, 'integer' | 'string', boolean]> = [
    ['specReplicasPath', ['.spec.'], 'should be a json path under .spec', 'integer', true],
    ['statusReplicasPath', ['.status.'], 'should be a json path under .status', 'integer', true],
    [
      'labelSelectorPath',
      ['.spec.', '.status.'],
      'should be a json path under either .spec or .status',
      'string',
      false,
    ],
  ];
  for (const [field, prefixes, prefixMessage, type, isRequired] of paths) {
    const fieldPath = child(path, field);
    const value = scale[field];
    if (value === undefined || value === null || value === '') {
      if (isRequired) issues.push(required(fieldPath));
      continue;
    }
    const syntax = checkSimpleJsonPath(String(value), fieldPath);
    if (syntax.length > 0) {
      issues.push(...syntax);
      continue;
    }
    if (!prefixes.some((p) => String(value).startsWith(p))) {
      issues.push(invalid(fieldPath, value, prefixMessage));
      continue;
    }
    if (schema) issues.push(...checkPathType(schema, String(value), type, fieldPath));
  }
  return issues;
}

/** The apiserver accepts scale paths the schema lacks or types differently (scaling fails later): a warning. */
function checkPathType(
  schema: JSONSchemaProps,
  jsonPath: string,
  type: 'integer' | 'string',
  fieldPath: string,
): Issue[] {
  const found = resolveSchemaPath(schema, jsonPath);
  if (found.kind === 'missing') {
    return [
      {
        path: fieldPath,
        severity: 'warning',
        value: jsonPath,
        message: `names no field declared in the schema (no ${found.missing}): the scale subresource will not work`,
      },
    ];
  }
  if (found.kind === 'found' && found.schema && found.schema.type !== type) {
    return [
      {
        path: fieldPath,
        severity: 'warning',
        value: jsonPath,
        message: `names a field the schema declares as ${found.schema.type ?? 'untyped'}, the scale subresource reads ${type === 'integer' ? 'an integer' : 'a string'} there`,
      },
    ];
  }
  return [];
}

/** `validateSimpleJSONPath`: non-empty and starting with a dot. */
export function checkSimpleJsonPath(value: string, path: string): Issue[] {
  if (value.length === 0) return [invalid(path, value, 'must not be empty')];
  if (!value.startsWith('.')) return [invalid(path, value, 'must be a simple json path starting with .')];
  return [];
}
