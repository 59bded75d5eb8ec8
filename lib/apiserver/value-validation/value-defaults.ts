import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * Applies schema defaults the way the apiserver does on create and on read
 * (`apiextensions-apiserver/pkg/apiserver/schema/defaulting.Default` followed by
 * `PruneNonNullableNullsWithoutDefaults`):
 * - an absent property with a `default` gets a copy of it; so does a property, map value or list
 *   item that is `null` when its schema is not `nullable`;
 * - defaults are applied recursively, including inside values that were just defaulted;
 * - remaining `null`s of non-nullable properties without a default are dropped.
 *
 * Returns a new value; the input is not modified.
 */
export function applyDefaults(schema: JSONSchemaProps, value: unknown): unknown {
  const copy = deepCopy(value);
  defaultInPlace(copy, schema);
  pruneNonNullableNulls(copy, schema);
  return copy;
}

function defaultInPlace(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s || x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return;
    x.forEach((v, i) => {
      if (isNonNullableNull(v, items) && items.default !== undefined) x[i] = deepCopy(items.default);
      defaultInPlace(x[i], items);
    });
    return;
  }
  const obj = x as Record<string, unknown>;
  for (const [k, prop] of Object.entries(s.properties ?? {})) {
    if (prop.default === undefined) continue;
    if (!(k in obj) || isNonNullableNull(obj[k], prop)) obj[k] = deepCopy(prop.default);
  }
  const ap = s.additionalProperties;
  for (const k of Object.keys(obj)) {
    const prop = s.properties?.[k];
    if (prop) {
      defaultInPlace(obj[k], prop);
    } else if (ap && typeof ap === 'object') {
      if (isNonNullableNull(obj[k], ap) && ap.default !== undefined) obj[k] = deepCopy(ap.default);
      defaultInPlace(obj[k], ap);
    }
  }
}

function pruneNonNullableNulls(x: unknown, s: JSONSchemaProps | undefined): void {
  if (!s || x === null || typeof x !== 'object') return;
  if (Array.isArray(x)) {
    for (const v of x) pruneNonNullableNulls(v, s.items);
    return;
  }
  const obj = x as Record<string, unknown>;
  const ap = s.additionalProperties;
  for (const k of Object.keys(obj)) {
    const prop = s.properties?.[k] ?? (ap && typeof ap === 'object' ? ap : undefined);
    if (!prop) continue;
    if (obj[k] === null && prop.nullable !== true && prop.default === undefined) delete obj[k];
    else pruneNonNullableNulls(obj[k], prop);
  }
}

function isNonNullableNull(v: unknown, s: JSONSchemaProps): boolean {
  return v === null && s.nullable !== true;
}

/** A JSON deep copy (defaults are plain JSON). */
function deepCopy<T>(v: T): T {
  return v === undefined ? v : JSON.parse(JSON.stringify(v));
}
