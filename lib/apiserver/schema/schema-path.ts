import { JSONSchemaProps } from './json-schema-props';

/** Outcome of following a JSONPath through a schema. */
export type SchemaPathResult =
  /** The path exists; `schema` is undefined below `x-kubernetes-preserve-unknown-fields` (any value). */
  | { readonly kind: 'found'; readonly schema?: JSONSchemaProps }
  /** The path leaves the schema at segment `missing` (e.g. `.spec.replicaz`). */
  | { readonly kind: 'missing'; readonly missing: string }
  /** The expression uses JSONPath features we do not follow (recursive descent, functions). */
  | { readonly kind: 'unsupported' };

/** The `ObjectMeta` fields every resource has, whatever its schema declares under `metadata`. */
const OBJECT_META: Record<string, JSONSchemaProps> = {
  name: { type: 'string' },
  generateName: { type: 'string' },
  namespace: { type: 'string' },
  uid: { type: 'string' },
  resourceVersion: { type: 'string' },
  creationTimestamp: { type: 'string', format: 'date-time' },
  deletionTimestamp: { type: 'string', format: 'date-time' },
  generation: { type: 'integer', format: 'int64' },
  deletionGracePeriodSeconds: { type: 'integer', format: 'int64' },
  labels: { type: 'object', additionalProperties: { type: 'string' } },
  annotations: { type: 'object', additionalProperties: { type: 'string' } },
  finalizers: { type: 'array', items: { type: 'string' } },
  ownerReferences: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  managedFields: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
};
const RESOURCE_ROOT: Record<string, JSONSchemaProps> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: OBJECT_META },
};

type Segment = { readonly name: string } | { readonly index: true };

/**
 * Follows a kubectl-style JSONPath (`.spec.replicas`, `.status.conditions[0].type`,
 * `.status.conditions[?(@.type=="Ready")].status`, `.metadata.labels.app\.kubernetes\.io/name`)
 * through a CRD version's `openAPIV3Schema`, the way printer columns and the scale subresource read objects.
 */
export function resolveSchemaPath(root: JSONSchemaProps, jsonPath: string): SchemaPathResult {
  const segments = parseJsonPath(jsonPath);
  if (!segments) return { kind: 'unsupported' };
  let current: JSONSchemaProps | undefined = root;
  let resourceRoot = true;
  let walked = '';
  for (const segment of segments) {
    walked += 'name' in segment ? `.${segment.name}` : '[*]';
    if (current === undefined) continue; // below preserve-unknown-fields: anything goes
    const next = step(current, segment, resourceRoot);
    if (next === 'missing') return { kind: 'missing', missing: walked };
    current = next;
    resourceRoot = current?.['x-kubernetes-embedded-resource'] === true;
  }
  return { kind: 'found', schema: current };
}

function step(s: JSONSchemaProps, segment: Segment, resourceRoot: boolean): JSONSchemaProps | undefined | 'missing' {
  if ('index' in segment) {
    if (s.type === 'array' && s.items) return s.items;
    return s['x-kubernetes-preserve-unknown-fields'] === true && !s.type ? undefined : 'missing';
  }
  if (resourceRoot && RESOURCE_ROOT[segment.name]) return RESOURCE_ROOT[segment.name];
  const declared = s.properties?.[segment.name];
  if (declared) return declared;
  if (typeof s.additionalProperties === 'object') return s.additionalProperties;
  if (s.additionalProperties === true || s['x-kubernetes-preserve-unknown-fields'] === true) return undefined;
  return 'missing';
}

/** Splits a JSONPath into names and indexes; undefined for syntax we do not follow. */
export function parseJsonPath(input: string): Segment[] | undefined {
  let path = input.trim();
  if (path.startsWith('{') && path.endsWith('}')) path = path.slice(1, -1);
  if (!path.startsWith('.') || path.includes('..')) return undefined;
  const segments: Segment[] = [];
  let i = 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let name = '';
      i++;
      while (i < path.length && path[i] !== '.' && path[i] !== '[') {
        if (path[i] === '\\' && i + 1 < path.length) i++;
        name += path[i++];
      }
      if (name === '') {
        if (i >= path.length) break;
        else continue;
      }
      segments.push({ name });
    } else if (c === '[') {
      const end = closingBracket(path, i);
      if (end < 0) return undefined;
      const inner = path.slice(i + 1, end).trim();
      const quoted = /^'(.*)'$|^"(.*)"$/.exec(inner);
      if (quoted) {
        segments.push({ name: quoted[1] ?? quoted[2] });
      } else if (
        inner === '*' ||
        /^-?\d*(:-?\d*)?$/.test(inner) ||
        /^\d+(,\d+)*$/.test(inner) ||
        inner.startsWith('?(')
      ) {
        segments.push({ index: true });
      } else {
        return undefined;
      }
      i = end + 1;
    } else {
      return undefined;
    }
  }
  return segments;
}

/** Index of the `]` closing the `[` at `open`, skipping quoted strings and nested brackets. */
function closingBracket(path: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < path.length; i++) {
    const c = path[i];
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i;
  }
  return -1;
}
