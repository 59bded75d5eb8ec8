import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

/**
 * Removes `description` from a schema subtree, to keep a CRD under the size limits.
 *
 * `selector` is `*` (the whole schema) or a dotted path of schema keys below the root's `properties`,
 * e.g. `spec.properties.template` for `openAPIV3Schema.properties.spec.properties.template`.
 * Returns a copy, or undefined when the selector names no node of this schema.
 *
 * @internal
 */
export function stripDescriptions(schema: JSONSchemaProps, selector: string): JSONSchemaProps | undefined {
  if (selector === '*') return withoutDescriptions(schema) as JSONSchemaProps;
  const keys = (selector.startsWith('properties.') ? selector : `properties.${selector}`).split('.');
  return replaceAt(schema, keys);
}

function replaceAt(node: any, keys: string[]): any {
  if (keys.length === 0) return withoutDescriptions(node);
  if (typeof node !== 'object' || node === null || !(keys[0] in node)) return undefined;
  const replaced = replaceAt(node[keys[0]], keys.slice(1));
  if (replaced === undefined) return undefined;
  return Array.isArray(node)
    ? node.map((x, i) => (String(i) === keys[0] ? replaced : x))
    : { ...node, [keys[0]]: replaced };
}

/** Deep copy without `description` keys of schema nodes (a property *named* description is kept). */
function withoutDescriptions(node: any, underProperties = false): any {
  if (Array.isArray(node)) return node.map((x) => withoutDescriptions(x));
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description' && !underProperties) continue;
    // values a user wrote (defaults, examples, enums) are data, not schema: leave them untouched
    if (!underProperties && (k === 'default' || k === 'example' || k === 'enum')) {
      out[k] = v;
      continue;
    }
    out[k] = withoutDescriptions(v, k === 'properties' && !underProperties);
  }
  return out;
}
