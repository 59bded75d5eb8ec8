/**
 * Structural-schema handling for custom resources, in the apiserver's order: prune unknown fields
 * (collecting warnings / strict errors), apply defaults, then validate (OpenAPI value validation).
 */
import { isObject, deepEqual } from './json-util';
import { StatusCause, fieldInvalid, fieldNotSupported, fieldRequired, formatValue } from './status';

const ROOT_META = new Set(['apiVersion', 'kind', 'metadata']);

/** Removes fields the schema does not know; returns their paths (e.g. `spec.bogus`). */
export function prune(obj: any, schema: any): string[] {
  const unknown: string[] = [];
  if (!schema || !isObject(obj)) return unknown;
  pruneValue(obj, schema, '', unknown, true);
  return unknown;
}

function pruneValue(value: any, schema: any, path: string, unknown: string[], isRoot: boolean): void {
  if (!schema || schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties && !schema.additionalProperties && !schema.items) return;
  if (isObject(value)) {
    const embedded = isRoot || schema['x-kubernetes-embedded-resource'] === true;
    for (const key of Object.keys(value)) {
      const child = path ? `${path}.${key}` : key;
      if (embedded && ROOT_META.has(key)) continue;
      const propSchema = schema.properties?.[key];
      if (propSchema) pruneValue(value[key], propSchema, child, unknown, false);
      else if (isObject(schema.additionalProperties)) pruneValue(value[key], schema.additionalProperties, child, unknown, false);
      else if (schema.additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields'] === true) continue;
      else {
        unknown.push(child);
        delete value[key];
      }
    }
  } else if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => pruneValue(item, schema.items, `${path}[${i}]`, unknown, false));
  }
}

/** Applies `default`s (recursively) where properties are absent, and drops non-nullable nulls first. */
export function applyDefaults(value: any, schema: any): void {
  if (!schema) return;
  if (isObject(value)) {
    for (const [key, propSchema] of Object.entries<any>(schema.properties ?? {})) {
      if (value[key] === null && !propSchema.nullable) delete value[key];
      if (value[key] === undefined && propSchema.default !== undefined) value[key] = JSON.parse(JSON.stringify(propSchema.default));
      if (value[key] !== undefined) applyDefaults(value[key], propSchema);
    }
    if (isObject(schema.additionalProperties)) {
      for (const key of Object.keys(value)) {
        if (!(schema.properties && key in schema.properties)) applyDefaults(value[key], schema.additionalProperties);
      }
    }
  } else if (Array.isArray(value) && schema.items) {
    value.forEach((item) => applyDefaults(item, schema.items));
  }
}

/** OpenAPI value validation with kube-openapi's wording. `path` is the field path of `value` ('' for the root). */
export function validateValue(value: any, schema: any, path = ''): StatusCause[] {
  const causes: StatusCause[] = [];
  walk(value, schema, path, causes, true);
  return causes;
}

function typeOf(v: any): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(v: any, type: string): boolean {
  const t = typeOf(v);
  if (type === 'number') return t === 'number' || t === 'integer';
  return t === type;
}

function walk(v: any, s: any, path: string, causes: StatusCause[], isRoot: boolean): void {
  if (!s) return;
  const where = path || '<root>';
  if (v === null) {
    if (!s.nullable && s.type) causes.push({ reason: 'FieldValueTypeInvalid', message: `Invalid value: "null": ${where} in body must be of type ${s.type}: "null"`, field: path });
    return;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (!(typeOf(v) === 'integer' || typeOf(v) === 'string')) {
      causes.push({ reason: 'FieldValueTypeInvalid', message: `Invalid value: ${formatValue(typeOf(v))}: ${where} in body must be of type integer,string: ${formatValue(typeOf(v))}`, field: path });
      return;
    }
  } else if (s.type && !typeMatches(v, s.type)) {
    causes.push({ reason: 'FieldValueTypeInvalid', message: `Invalid value: ${formatValue(typeOf(v))}: ${where} in body must be of type ${s.type}: ${formatValue(typeOf(v))}`, field: path });
    return;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e: any) => deepEqual(e, v))) causes.push(fieldNotSupported(path, v, s.enum));
  if (typeof v === 'number') {
    if (s.minimum !== undefined) {
      if (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum) {
        causes.push(fieldInvalid(path, v, `${where} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`));
      }
    }
    if (s.maximum !== undefined) {
      if (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum) {
        causes.push(fieldInvalid(path, v, `${where} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`));
      }
    }
    if (s.multipleOf !== undefined && v % s.multipleOf !== 0) causes.push(fieldInvalid(path, v, `${where} in body should be a multiple of ${s.multipleOf}`));
  }
  if (typeof v === 'string') {
    const len = [...v].length;
    if (s.maxLength !== undefined && len > s.maxLength) causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${s.maxLength} bytes`, field: path });
    if (s.minLength !== undefined && len < s.minLength) causes.push(fieldInvalid(path, v, `${where} in body should be at least ${s.minLength} chars long`));
    if (s.pattern !== undefined && !new RegExp(s.pattern, 'u').test(v)) causes.push(fieldInvalid(path, v, `${where} in body should match '${s.pattern}'`));
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) causes.push({ reason: 'FieldValueTooMany', message: `Too many: ${v.length}: must have at most ${s.maxItems} items`, field: path });
    if (s.minItems !== undefined && v.length < s.minItems) causes.push(fieldInvalid(path, v.length, `${where} in body should have at least ${s.minItems} items`));
    const listType = s['x-kubernetes-list-type'];
    if (listType === 'set' || s.uniqueItems) {
      v.forEach((item, i) => {
        if (v.findIndex((o) => deepEqual(o, item)) !== i) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${formatValue(item)}`, field: `${path}[${i}]` });
      });
    } else if (listType === 'map') {
      const keys: string[] = s['x-kubernetes-list-map-keys'] ?? [];
      v.forEach((item, i) => {
        const k = keys.map((key) => item?.[key]);
        if (v.findIndex((o) => deepEqual(keys.map((key) => o?.[key]), k)) !== i) {
          const dup = Object.fromEntries(keys.map((key) => [key, item?.[key]]));
          causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: map[string]interface {}${JSON.stringify(dup).replace(/"/g, '').replace(/,/g, ' ').replace(/^\{/, '[').replace(/\}$/, ']')}`, field: `${path}[${i}]` });
        }
      });
    }
    if (s.items) v.forEach((item, i) => walk(item, s.items, `${path}[${i}]`, causes, false));
  }
  if (isObject(v)) {
    const propCount = Object.keys(v).length;
    if (s.maxProperties !== undefined && propCount > s.maxProperties) causes.push({ reason: 'FieldValueTooMany', message: `Too many: ${propCount}: must have at most ${s.maxProperties} items`, field: path });
    if (s.minProperties !== undefined && propCount < s.minProperties) causes.push(fieldInvalid(path, propCount, `${where} in body should have at least ${s.minProperties} properties`));
    for (const req of s.required ?? []) {
      if (v[req] === undefined) causes.push(fieldRequired(path ? `${path}.${req}` : req));
    }
    for (const [key, child] of Object.entries(v)) {
      if (isRoot && ROOT_META.has(key)) continue;
      const childPath = path ? `${path}.${key}` : key;
      const ps = s.properties?.[key] ?? (isObject(s.additionalProperties) ? s.additionalProperties : undefined);
      if (ps) walk(child, ps, childPath, causes, false);
    }
  }
  for (const sub of s.allOf ?? []) walk(v, sub, path, causes, false);
  if (Array.isArray(s.anyOf) && !s.anyOf.some((sub: any) => validateValue(v, sub, path).length === 0)) {
    causes.push(fieldInvalid(path, v, `${where} in body must match at least one schema (anyOf)`));
  }
  if (Array.isArray(s.oneOf) && s.oneOf.filter((sub: any) => validateValue(v, sub, path).length === 0).length !== 1) {
    causes.push(fieldInvalid(path, v, `${where} in body must validate one and only one schema (oneOf)`));
  }
  if (s.not && validateValue(v, s.not, path).length === 0) causes.push(fieldInvalid(path, v, `${where} in body must not validate the schema (not)`));
}
