import { child, index, key } from '../apimachinery/field';
import { Issue } from '../apimachinery/issue';
import { Quantity } from '../apimachinery/quantity';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

/**
 * Values of `format: quantity` fields that are no Kubernetes quantity.
 *
 * Why a check of our own: the apiserver does not know the `quantity` format (kube-openapi's strfmt has no such
 * entry), so it stores `1Gib` or `ten` without a word, and the controller fails later when it parses the value
 * with `resource.ParseQuantity`. Integers are quantities; other types are left to the schema checks.
 * @internal
 */
export function checkQuantityFields(schema: JSONSchemaProps, value: unknown, path = ''): Issue[] {
  const issues: Issue[] = [];
  walk(schema, value, path, issues);
  return issues;
}

function walk(schema: JSONSchemaProps | undefined, value: unknown, path: string, issues: Issue[]): void {
  if (!schema || value === null || value === undefined) return;
  if (schema.format === 'quantity' && typeof value === 'string' && !Quantity.isValid(value)) {
    issues.push({
      path: path || '<root>',
      value,
      message:
        'Invalid value: must be a Kubernetes quantity such as 500m, 1Gi or 2.5e3 ' +
        '(the apiserver does not check format "quantity" and would store it; the controller\'s resource.ParseQuantity would not parse it)',
    });
    return;
  }
  if (Array.isArray(value)) {
    const items = Array.isArray(schema.items) ? undefined : schema.items;
    value.forEach((item, i) => walk(items, item, index(path, i), issues));
    return;
  }
  if (typeof value !== 'object') return;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  for (const [name, field] of Object.entries(value as Record<string, unknown>)) {
    // the apiserver's notation: map keys that are not identifiers go in brackets (`labels[app.kubernetes.io/name]`)
    const at = /^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(name) ? child(path, name) : key(path, name);
    walk(schema.properties?.[name] ?? additional, field, at, issues);
  }
}
