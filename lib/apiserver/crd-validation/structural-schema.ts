import { child, forbidden, index, invalid, isObject, key, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { goRegexpError } from '../schema/go-regexp';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * Whether a CRD version's `openAPIV3Schema` is a structural schema the apiserver accepts:
 * OpenAPI features it does not support, `type` everywhere, the restrictions inside
 * `allOf`/`anyOf`/`oneOf`/`not`, root `metadata`, int-or-string, embedded resources and
 * preserve-unknown-fields. `basePath` is the field path of `schema`,
 * e.g. `spec.versions[0].schema.openAPIV3Schema`.
 *
 * @see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
 */
export function checkStructuralSchema(schema: JSONSchemaProps, basePath: string): Issue[] {
  if (!isObject(schema)) return [required(basePath, 'must be an object')];
  const issues: Issue[] = [];
  if (schema.nullable === true) {
    issues.push(forbidden(child(basePath, 'nullable'), 'nullable cannot be true at the root'));
  }
  checkOpenApi(schema, basePath, true, false, issues);
  checkInvariants(schema, 'root', basePath, issues);
  return issues;
}

const OPENAPI_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = ['metadata', 'kind', 'apiVersion'];
const JUNCTORS = ['allOf', 'anyOf', 'oneOf'] as const;

// The walks below visit every node of schemas of up to megabytes: they append to one list (no array per node).

/** OpenAPI v3 features the apiserver does not support, checked on every subschema including junctors. */
function checkOpenApi(s: any, path: string, isRoot: boolean, insideResourceMeta: boolean, issues: Issue[]): void {
  if (!isObject(s)) return;
  if (typeof s.type === 'string' && s.type.length > 0 && !OPENAPI_TYPES.includes(s.type)) {
    issues.push(notSupported(child(path, 'type'), s.type, OPENAPI_TYPES));
  }
  if (s.type === 'null') {
    issues.push(forbidden(child(path, 'type'), 'type cannot be set to null, use nullable as an alternative'));
  }
  if (s.id !== undefined && s.id !== '') issues.push(forbidden(child(path, 'id'), 'id is not supported'));
  if (s.additionalItems !== undefined) {
    issues.push(forbidden(child(path, 'additionalItems'), 'additionalItems is not supported'));
  }
  if (isObject(s.patternProperties) && Object.keys(s.patternProperties).length > 0) {
    issues.push(forbidden(child(path, 'patternProperties'), 'patternProperties is not supported'));
  }
  if (isObject(s.definitions) && Object.keys(s.definitions).length > 0) {
    issues.push(forbidden(child(path, 'definitions'), 'definitions is not supported'));
  }
  if (s.dependencies !== undefined) {
    issues.push(forbidden(child(path, 'dependencies'), 'dependencies is not supported'));
  }
  if (s.$ref !== undefined) issues.push(forbidden(child(path, '$ref'), '$ref is not supported'));
  if (typeof s.$schema === 'string' && s.$schema !== '') {
    // kube-apiserver names the version's whole schema (`OpenAPIV3Schema 'schema' is not supported`)
    issues.push(
      forbidden(
        child(path, '$schema'),
        "$schema is not supported (the apiserver: OpenAPIV3Schema 'schema' is not supported)",
      ),
    );
  }
  if (Array.isArray(s.items)) {
    issues.push(forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  }
  if (insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    issues.push(forbidden(child(path, 'x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  if (s.uniqueItems === true) {
    issues.push(
      forbidden(
        child(path, 'uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  const hasProperties = isObject(s.properties) && Object.keys(s.properties).length > 0;
  if (s.additionalProperties !== undefined && hasProperties && s.additionalProperties !== true) {
    issues.push(
      forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
    );
  }
  if (s['x-kubernetes-preserve-unknown-fields'] !== undefined && s['x-kubernetes-preserve-unknown-fields'] !== true) {
    issues.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        s['x-kubernetes-preserve-unknown-fields'],
        'must be true or undefined',
      ),
    );
  }
  if (typeof s.pattern === 'string' && s.pattern.length > 0) {
    const err = goRegexpError(s.pattern);
    if (err) {
      issues.push(invalid(child(path, 'pattern'), s.pattern, `must be a valid regular expression, but isn't: ${err}`));
    }
  }

  if (isObject(s.additionalProperties)) {
    checkOpenApi(s.additionalProperties, `${path}.additionalProperties`, false, insideResourceMeta, issues);
  }
  if (isObject(s.properties)) {
    const metaHere = isRoot || s['x-kubernetes-embedded-resource'] === true;
    for (const name of Object.keys(s.properties)) {
      const meta = metaHere && META_FIELDS.includes(name);
      checkOpenApi(s.properties[name], `${path}.properties[${name}]`, false, insideResourceMeta || meta, issues);
    }
  }
  if (s.not !== undefined) checkOpenApi(s.not, `${path}.not`, false, insideResourceMeta, issues);
  for (const junctor of JUNCTORS) {
    const subs = s[junctor];
    if (!Array.isArray(subs)) continue;
    for (let i = 0; i < subs.length; i++) {
      checkOpenApi(subs[i], `${path}.${junctor}[${i}]`, false, insideResourceMeta, issues);
    }
  }
  if (isObject(s.items)) checkOpenApi(s.items, `${path}.items`, false, insideResourceMeta, issues);
}

type Level = 'root' | 'item' | 'field';

/** The structural invariants (`ValidateStructural`) of a node reached through properties, items or additionalProperties. */
function checkInvariants(s: any, level: Level, path: string, issues: Issue[]): void {
  if (!isObject(s)) return;
  const type: string = typeof s.type === 'string' ? s.type : '';
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserveUnknown = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;

  if (type === 'array' && s.items === undefined) issues.push(required(child(path, 'items'), 'must be specified'));
  if (isObject(s.items)) checkInvariants(s.items, 'item', `${path}.items`, issues);
  if (isObject(s.properties)) {
    for (const name of Object.keys(s.properties)) {
      checkInvariants(s.properties[name], 'field', `${path}.properties[${name}]`, issues);
    }
  }
  if (s.additionalProperties !== undefined) {
    if (level === 'root') issues.push(forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObject(s.additionalProperties)) {
      checkInvariants(s.additionalProperties, 'field', `${path}.additionalProperties`, issues);
    }
  }

  if (intOrString && preserveUnknown) {
    issues.push(
      invalid(
        child(path, 'x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && embedded) {
    issues.push(
      invalid(
        child(path, 'x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  }
  if (intOrString && type) {
    // the apiserver accepts this: x-kubernetes-int-or-string wins and the value may still be an integer or a string
    issues.push({
      path: child(path, 'type'),
      severity: 'warning',
      value: type,
      message: `ignored: x-kubernetes-int-or-string accepts both integers and strings whatever the type says (drop the type, or x-kubernetes-int-or-string if only ${type} values are meant)`,
    });
  }

  if (s.allOf !== undefined || s.anyOf !== undefined || s.oneOf !== undefined || s.not !== undefined) {
    issues.push(...checkValueValidations(s, path, level === 'root'));
  }

  if (embedded && type !== 'object') {
    issues.push(
      type
        ? invalid(child(path, 'type'), type, 'must be object if x-kubernetes-embedded-resource is true')
        : required(child(path, 'type'), 'must be object if x-kubernetes-embedded-resource is true'),
    );
  } else if (!type && !intOrString && !preserveUnknown) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[level];
    issues.push(required(child(path, 'type'), detail));
  }
  if (embedded && s.additionalProperties !== undefined) {
    issues.push(
      forbidden(child(path, 'additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'),
    );
  }
  if (level === 'root' && type && type !== 'object') {
    issues.push(invalid(child(path, 'type'), type, 'must be object at the root'));
  }

  const checkMetadata = level === 'root' || embedded;
  const props = isObject(s.properties) ? s.properties : EMPTY;
  if (checkMetadata) {
    for (const field of ['kind', 'apiVersion']) {
      if (props[field] !== undefined && props[field]?.type !== 'string') {
        issues.push(
          invalid(child(key(child(path, 'properties'), field), 'type'), props[field]?.type, 'must be string'),
        );
      }
    }
  }
  if (props.metadata !== undefined) {
    issues.push(...checkMetadataNode(props.metadata, checkMetadata, level, key(child(path, 'properties'), 'metadata')));
  }
  if (embedded && !preserveUnknown && Object.keys(props).length === 0) {
    issues.push(
      required(
        child(path, 'properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

const EMPTY: Record<string, any> = Object.freeze({});

/** Root metadata may only restrict `name` and `generateName`: the apiserver owns ObjectMeta. */
function checkMetadataNode(metadata: any, checkMetadata: boolean, level: Level, path: string): Issue[] {
  const issues: Issue[] = [];
  if (checkMetadata && metadata?.type !== 'object') {
    issues.push(invalid(child(path, 'type'), metadata?.type, 'must be object'));
  }
  if (level !== 'root' || !isObject(metadata)) return issues;
  const propertyNames = isObject(metadata.properties) ? Object.keys(metadata.properties) : [];
  const onlyNames = propertyNames.every((n) => n === 'name' || n === 'generateName');
  const extra = Object.keys(metadata).filter(
    (k) => !(k === 'properties' && onlyNames) && setInStructuralMetadata(k, metadata[k]),
  );
  if (extra.length > 0) {
    issues.push(
      forbidden(
        path,
        `must not specify anything other than name and generateName, but metadata is implicitly specified (found ${extra.join(', ')})`,
      ),
    );
  }
  return issues;
}

/** Keywords the apiserver's structural schema does not keep (it compares root metadata as kept). */
const NOT_STRUCTURAL = new Set([
  'example',
  'externalDocs',
  'id',
  '$schema',
  '$ref',
  'definitions',
  'dependencies',
  'patternProperties',
  'additionalItems',
]);
/** Slices the structural schema builds element by element: empty, they are left nil. */
const REBUILT_LISTS = new Set(['enum', 'allOf', 'anyOf', 'oneOf']);

/**
 * Whether a keyword of root `metadata` makes its structural schema differ from the empty one the apiserver allows
 * (`validateStructuralMetadataInvariants`): Go zero values do not (`nullable: false`, `description: ""`, `enum: []`),
 * pointers and kept slices do (`additionalProperties: false`, `required: []`); type and default are checked apart.
 * Measured on kube-apiserver 1.32 (test/apiserver/crd-validation/invalid-crds.test.ts).
 */
function setInStructuralMetadata(k: string, v: unknown): boolean {
  if (k === 'type' || k === 'default' || NOT_STRUCTURAL.has(k)) return false;
  if (k === 'additionalProperties' || k === 'x-kubernetes-list-type' || k === 'x-kubernetes-map-type') return true;
  if (v === false || v === '') return false;
  return !(Array.isArray(v) && v.length === 0 && REBUILT_LISTS.has(k));
}

/** Go zero values and empty rebuilt slices, which a decoded junctor does not tell from absent keywords. */
function zeroInJunctor(k: string, v: unknown): boolean {
  if (k === 'additionalProperties') return v === false;
  return v === false || v === '' || (Array.isArray(v) && v.length === 0 && REBUILT_LISTS.has(k));
}

/** `anyOf: [{type: integer}, {type: string}]`, the one typed junctor allowed (for int-or-string). */
function isIntOrStringAnyOf(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const only = (x: any, type: string) =>
    isObject(x) && x.type === type && Object.entries(x).every(([k, v]) => k === 'type' || zeroInJunctor(k, v));
  return only(anyOf[0], 'integer') && only(anyOf[1], 'string');
}

/**
 * Junctors of a structural node: their content must be structural-free, and (at the root only, like
 * `validateStructuralCompleteness`, which does not descend into properties) every field they name must be declared outside.
 */
function checkValueValidations(s: any, path: string, isRoot: boolean): Issue[] {
  const issues: Issue[] = [];
  const skipAnyOf = isIntOrStringAnyOf(s.anyOf);
  const skipFirstAllOfAnyOf = Array.isArray(s.allOf) && isObject(s.allOf[0]) && isIntOrStringAnyOf(s.allOf[0].anyOf);
  for (const junctor of JUNCTORS) {
    if (!Array.isArray(s[junctor])) continue;
    if (junctor === 'anyOf' && skipAnyOf) continue;
    s[junctor].forEach((nested: unknown, i: number) => {
      const nestedPath = index(child(path, junctor), i);
      issues.push(...checkNested(nested, nestedPath, junctor === 'allOf' && i === 0 && skipFirstAllOfAnyOf));
      if (isRoot) issues.push(...checkCompleteness(nested, s, path, nestedPath));
    });
  }
  if (s.not !== undefined) {
    issues.push(...checkNested(s.not, child(path, 'not'), false));
    if (isRoot) issues.push(...checkCompleteness(s.not, s, path, child(path, 'not')));
  }
  return issues;
}

const NESTED_FORBIDDEN: ReadonlyArray<[string, (v: any) => boolean, string]> = [
  ['type', (v) => typeof v === 'string' && v.length > 0, 'must be empty to be structural'],
  ['default', (v) => v !== undefined && v !== null, 'must be undefined to be structural'],
  ['title', (v) => typeof v === 'string' && v.length > 0, 'must be empty to be structural'],
  ['description', (v) => typeof v === 'string' && v.length > 0, 'must be empty to be structural'],
  ['nullable', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-int-or-string', (v) => v === true, 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
  ['x-kubernetes-list-type', (v) => v !== undefined, 'must be undefined to be structural'],
  ['x-kubernetes-map-type', (v) => v !== undefined, 'must be undefined to be structural'],
  ['x-kubernetes-validations', (v) => Array.isArray(v) && v.length > 0, 'must be empty to be structural'],
];

/** Content of `allOf`/`anyOf`/`oneOf`/`not`: value validations only (`validateNestedValueValidation`). */
function checkNested(v: any, path: string, skipAnyOf: boolean): Issue[] {
  if (!isObject(v)) return [];
  const issues: Issue[] = [];
  for (const junctor of JUNCTORS) {
    if (!Array.isArray(v[junctor]) || (junctor === 'anyOf' && skipAnyOf)) continue;
    v[junctor].forEach((n: unknown, i: number) =>
      issues.push(...checkNested(n, index(child(path, junctor), i), false)),
    );
  }
  if (v.not !== undefined) issues.push(...checkNested(v.not, child(path, 'not'), false));
  if (isObject(v.items)) issues.push(...checkNested(v.items, child(path, 'items'), false));
  if (isObject(v.properties)) {
    for (const [name, prop] of Object.entries(v.properties)) {
      issues.push(...checkNested(prop, key(child(path, 'properties'), name), false));
    }
  }
  for (const [field, isSet, detail] of NESTED_FORBIDDEN) {
    if (isSet(v[field])) issues.push(forbidden(child(path, field), detail));
  }
  // `additionalProperties: false` decodes to nothing a value validation keeps (measured: accepted in a junctor)
  if (v.additionalProperties !== undefined && v.additionalProperties !== false) {
    issues.push(forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  }
  if (isObject(v.properties) && v.properties.metadata !== undefined) {
    issues.push(forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
  }
  return issues;
}

/** Every property or items named inside a junctor must also be specified in the structural schema (`validateStructuralCompleteness`). */
function checkCompleteness(v: any, s: any, sPath: string, vPath: string): Issue[] {
  if (!isObject(v)) return [];
  if (!isObject(s)) return [required(sPath, `because it is defined in ${vPath}`)];
  const issues: Issue[] = [];
  if (v.items !== undefined) {
    if (!isObject(s.items)) {
      issues.push(required(child(sPath, 'items'), `because it is defined in ${child(vPath, 'items')}`));
    } else {
      issues.push(...checkCompleteness(v.items, s.items, child(sPath, 'items'), child(vPath, 'items')));
    }
  }
  if (isObject(v.properties)) {
    const declared = isObject(s.properties) ? s.properties : {};
    for (const [name, prop] of Object.entries(v.properties)) {
      const sProp = key(child(sPath, 'properties'), name);
      const vProp = key(child(vPath, 'properties'), name);
      if (declared[name] === undefined) issues.push(required(sProp, `because it is defined in ${vProp}`));
      else issues.push(...checkCompleteness(prop, declared[name], sProp, vProp));
    }
  }
  for (const junctor of JUNCTORS) {
    if (!Array.isArray(v[junctor])) continue;
    v[junctor].forEach((n: unknown, i: number) =>
      issues.push(...checkCompleteness(n, s, sPath, index(child(vPath, junctor), i))),
    );
  }
  if (v.not !== undefined) issues.push(...checkCompleteness(v.not, s, sPath, child(vPath, 'not')));
  return issues;
}
