/**
 * Structural-schema handling for custom resources, in the apiserver's order: prune unknown fields
 * (collecting warnings / strict errors), then apply defaults. Validation lives in cr-validation.ts.
 */
import { isObject } from './json-util';

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
