import { Issue } from '../apimachinery/issue';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

/**
 * Warnings for the nulls written in an example resource that are not stored as null: cdk8s drops null fields
 * of objects (the apiserver then stores the field's default, or nothing), and the apiserver replaces a null list
 * item by the items' default when they are not nullable. Checked against the apiserver's storage in
 * test/apiserver/null-handling.test.ts.
 */
export function writtenNullWarnings(schema: JSONSchemaProps | undefined, written: unknown, path: string): Issue[] {
  const issues: Issue[] = [];
  walk(schema, written, path, issues);
  return issues;
}

function walk(s: JSONSchemaProps | undefined, v: unknown, path: string, issues: Issue[]): void {
  if (!s || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    const items = s.items;
    v.forEach((item, i) => {
      const at = `${path}[${i}]`;
      if (item === null && items && items.nullable !== true && items.default !== undefined) {
        issues.push({
          path: at,
          severity: 'warning',
          value: null,
          message: `null is stored as the items' default ${JSON.stringify(items.default)} (the items are not nullable)`,
        });
      } else {
        walk(items, item, at, issues);
      }
    });
    return;
  }
  const ap = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const [k, value] of Object.entries(v as Record<string, unknown>)) {
    const prop = s.properties?.[k] ?? ap;
    const at = path ? `${path}.${k}` : k;
    if (value !== null) {
      walk(prop, value, at, issues);
      continue;
    }
    const stored = prop?.default !== undefined ? `the default ${JSON.stringify(prop.default)}` : 'nothing';
    const nullable = prop?.nullable === true ? ' although the field is nullable' : '';
    issues.push({
      path: at,
      severity: 'warning',
      value: null,
      message: `null is not written (cdk8s drops null fields), so the apiserver stores ${stored} here${nullable}`,
    });
  }
}
