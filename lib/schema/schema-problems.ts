import { child, key } from '../apimachinery/field';
import { Issue } from '../apimachinery/issue';
import { JSONSchemaProps } from '../apiserver/schema/json-schema-props';

/**
 * Where a `Schema` builder keeps the problems of its arguments: a symbol key, so object spreads (`{ ...node }`)
 * carry it while JSON output, `Object.keys` and the apiserver never see it. `Symbol.for`: nodes built by another
 * copy of this library are read too.
 */
const SCHEMA_PROBLEMS = Symbol.for('cdk8s-operator.SchemaProblems');

/** `node` with `problems` attached (the node itself when there are none). @internal */
export function withSchemaProblems(node: JSONSchemaProps, problems: readonly string[]): JSONSchemaProps {
  if (problems.length === 0) return node;
  return Object.assign(node, { [SCHEMA_PROBLEMS]: [...problems] });
}

/**
 * The problems `Schema` builders recorded anywhere in `schema`, each at the field path of its node
 * (`path` is the schema's own, e.g. `spec.versions[0].schema.openAPIV3Schema`).
 * @internal
 */
export function schemaProblems(schema: JSONSchemaProps | undefined, path: string): Issue[] {
  const issues: Issue[] = [];
  const walk = (node: JSONSchemaProps | undefined, at: string) => {
    if (typeof node !== 'object' || node === null) return;
    for (const message of ((node as any)[SCHEMA_PROBLEMS] as string[] | undefined) ?? []) {
      issues.push({ path: at, message });
    }
    for (const [name, property] of Object.entries(node.properties ?? {})) {
      walk(property, key(child(at, 'properties'), name));
    }
    if (!Array.isArray(node.items)) walk(node.items, child(at, 'items'));
    if (typeof node.additionalProperties === 'object') {
      walk(node.additionalProperties, child(at, 'additionalProperties'));
    }
    for (const junctor of ['allOf', 'anyOf', 'oneOf'] as const) {
      (node[junctor] ?? []).forEach((n, i) => walk(n, `${child(at, junctor)}[${i}]`));
    }
    walk(node.not, child(at, 'not'));
  };
  walk(schema, path);
  return issues;
}
