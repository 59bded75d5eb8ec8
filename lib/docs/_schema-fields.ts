import { JSONSchemaProps, ValidationRule } from '../apiserver/schema/json-schema-props';

/** One field of a custom resource, flattened from its schema for documentation. @internal */
export interface FieldDoc {
  /** `.spec.replicas`, `.spec.items[*].name`, `.spec.labels[*]` (map values). */
  readonly path: string;
  readonly type: string;
  readonly required: boolean;
  readonly default?: unknown;
  /** One entry per constraint, e.g. `1 ≤ value ≤ 9`, `pattern ^[a-z]+$`. */
  readonly validation: readonly string[];
  readonly enum?: readonly unknown[];
  readonly description?: string;
  readonly rules: readonly ValidationRule[];
}

/** Fields the apiserver itself defines on every object; documented by Kubernetes, not by the CRD. @internal */
export const STANDARD_ROOT_FIELDS: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Every field below the root of an openAPIV3Schema, depth first in declaration order, plus the root
 * itself (path `.`) when it carries CEL rules. Standard root fields (apiVersion, kind, metadata) are
 * left out unless they declare more than a type.
 *
 * @internal
 */
export function flattenSchema(root: JSONSchemaProps): FieldDoc[] {
  const out: FieldDoc[] = [];
  if ((root['x-kubernetes-validations'] ?? []).length > 0) out.push(fieldDoc('.', root, false));
  for (const [name, child] of Object.entries(root.properties ?? {})) {
    if (STANDARD_ROOT_FIELDS.has(name) && isPlainStandardField(child)) continue;
    walk(`.${name}`, child, (root.required ?? []).includes(name), out);
  }
  return out;
}

function walk(path: string, node: JSONSchemaProps, required: boolean, out: FieldDoc[]): void {
  out.push(fieldDoc(path, node, required));
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    walk(`${path}.${name}`, child, (node.required ?? []).includes(name), out);
  }
  const element = node.items ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
  // Element schemas get their own row only when they hold something to say beyond their type.
  if (
    element &&
    (element.properties ||
      element.description ||
      element['x-kubernetes-validations'] ||
      constraints(element).length > 0)
  ) {
    if (element.properties) {
      for (const [name, child] of Object.entries(element.properties)) {
        walk(`${path}[*].${name}`, child, (element.required ?? []).includes(name), out);
      }
      if ((element['x-kubernetes-validations'] ?? []).length > 0 || constraints(element).length > 0) {
        out.push(fieldDoc(`${path}[*]`, element, false));
      }
    } else {
      walk(`${path}[*]`, element, false, out);
    }
  }
}

function fieldDoc(path: string, node: JSONSchemaProps, required: boolean): FieldDoc {
  return {
    path,
    type: typeOf(node),
    required,
    ...(node.default !== undefined ? { default: node.default } : {}),
    validation: constraints(node),
    ...(node.enum ? { enum: node.enum } : {}),
    ...(node.description ? { description: node.description } : {}),
    rules: node['x-kubernetes-validations'] ?? [],
  };
}

function isPlainStandardField(node: JSONSchemaProps): boolean {
  return Object.keys(node).every((k) => k === 'type' || k === 'description');
}

/** `string`, `integer (int32)`, `[]string`, `[]object`, `map[string]string`, `int-or-string`, `object (any fields)`. @internal */
export function typeOf(node: JSONSchemaProps): string {
  if (node['x-kubernetes-int-or-string']) return 'int-or-string';
  if (node['x-kubernetes-embedded-resource']) return 'object (embedded resource)';
  const format = node.format ? ` (${node.format})` : '';
  if (node.type === 'array') return `[]${node.items ? typeOf(node.items) : 'any'}`;
  if (node.type === 'object' || (node.type === undefined && node.properties)) {
    if (typeof node.additionalProperties === 'object') return `map[string]${typeOf(node.additionalProperties)}`;
    if (node['x-kubernetes-preserve-unknown-fields']) {
      return node.properties ? 'object (unknown fields kept)' : 'object (any fields)';
    }
    return 'object';
  }
  if (node.type === undefined) return node['x-kubernetes-preserve-unknown-fields'] ? 'any' : 'untyped';
  return `${node.type}${format}`;
}

/** The constraints of a node in words, except `enum` and CEL rules (listed apart). @internal */
export function constraints(node: JSONSchemaProps): string[] {
  const out: string[] = [];
  const range = (
    lo: number | undefined,
    loEx: boolean | undefined,
    hi: number | undefined,
    hiEx: boolean | undefined,
    what: string,
  ) => {
    if (lo !== undefined && hi !== undefined) out.push(`${lo} ${loEx ? '<' : '≤'} ${what} ${hiEx ? '<' : '≤'} ${hi}`);
    else if (lo !== undefined) out.push(`${what} ${loEx ? '>' : '≥'} ${lo}`);
    else if (hi !== undefined) out.push(`${what} ${hiEx ? '<' : '≤'} ${hi}`);
  };
  range(node.minimum, node.exclusiveMinimum, node.maximum, node.exclusiveMaximum, 'value');
  if (node.multipleOf !== undefined) out.push(`multiple of ${node.multipleOf}`);
  range(node.minLength, false, node.maxLength, false, 'length');
  range(node.minItems, false, node.maxItems, false, 'items');
  range(node.minProperties, false, node.maxProperties, false, 'entries');
  if (node.pattern !== undefined) out.push(`pattern \`${node.pattern}\``);
  if (node.uniqueItems) out.push('unique items');
  if (node.nullable) out.push('nullable');
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'map') {
    out.push(`list map keyed by ${(node['x-kubernetes-list-map-keys'] ?? []).map((k) => `\`${k}\``).join(', ')}`);
  } else if (listType === 'set') {
    out.push('set (unique items, merged on apply)');
  }
  if (node['x-kubernetes-map-type'] === 'atomic') out.push('atomic (replaced as a whole on apply)');
  if (node['x-kubernetes-preserve-unknown-fields'] && node.properties) out.push('unknown fields kept');
  for (const key of ['allOf', 'anyOf', 'oneOf', 'not'] as const) {
    if (node[key] !== undefined) out.push(`${key} \`${JSON.stringify(node[key])}\``);
  }
  return out;
}
