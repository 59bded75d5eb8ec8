import { JSONSchemaProps } from '../../schema/json-schema-props';

/**
 * What structured-merge-diff makes of a schema node: a scalar, a struct (declared fields), a map (one element type),
 * a list, or `deduced` (preserved unknown fields: maps merge granularly, lists are atomic). Each map, struct and list
 * is atomic or granular (a list granular as a `set` or a `map` with keys).
 */
type MergeType =
  | { readonly kind: 'scalar' }
  | { readonly kind: 'deduced' }
  | {
      readonly kind: 'struct';
      readonly fields: Readonly<Record<string, JSONSchemaProps>>;
      readonly atomic: boolean;
      readonly open: boolean;
    }
  | { readonly kind: 'map'; readonly element: JSONSchemaProps | undefined; readonly atomic: boolean }
  | {
      readonly kind: 'list';
      readonly element: JSONSchemaProps | undefined;
      readonly listType: 'atomic' | 'set' | 'map';
      readonly keys: readonly string[];
    };

/**
 * ObjectMeta as the apiserver's type converter sees it (the CRD's schema says only `type: object` for metadata):
 * labels and annotations are granular maps, finalizers a set, ownerReferences a map list keyed by uid.
 */
const OBJECT_META: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    generateName: { type: 'string' },
    namespace: { type: 'string' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
    ownerReferences: {
      type: 'array',
      items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['uid'],
    },
  },
};

/** The root of a custom resource: the version's schema with apiVersion, kind and ObjectMeta. */
export function customResourceMergeSchema(schema: JSONSchemaProps): JSONSchemaProps {
  return {
    ...schema,
    type: 'object',
    properties: {
      ...(schema.properties ?? {}),
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: OBJECT_META,
    },
  };
}

function mergeType(s: JSONSchemaProps | undefined): MergeType {
  if (!s) return { kind: 'deduced' };
  if (s['x-kubernetes-int-or-string']) return { kind: 'scalar' };
  if (s.type === 'array') {
    const listType = (s['x-kubernetes-list-type'] as 'atomic' | 'set' | 'map' | undefined) ?? 'atomic';
    return {
      kind: 'list',
      element: s.items as JSONSchemaProps | undefined,
      listType,
      keys: s['x-kubernetes-list-map-keys'] ?? [],
    };
  }
  const atomic = s['x-kubernetes-map-type'] === 'atomic';
  if (s.properties || (s.type === 'object' && s['x-kubernetes-embedded-resource'])) {
    const fields: Record<string, JSONSchemaProps> = { ...(s.properties ?? {}) };
    if (s['x-kubernetes-embedded-resource']) {
      Object.assign(fields, { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: OBJECT_META });
    }
    return { kind: 'struct', fields, atomic, open: s['x-kubernetes-preserve-unknown-fields'] === true };
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    return { kind: 'map', element: s.additionalProperties, atomic };
  }
  if (s.type === 'object' || s['x-kubernetes-preserve-unknown-fields'] || s.type === undefined) {
    return { kind: 'deduced' };
  }
  return { kind: 'scalar' };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The patch checked as the apiserver checks an apply configuration before merging it
 * (`k8s.io/apiserver/pkg/admission/plugin/policy/mutating/patch/smd.go`): a field the schema does not declare is
 * refused by the type converter, and an apply configuration may not set an atomic list, map or struct (it would
 * replace what it does not name). The errors as the apiserver words them; none when the patch merges.
 */
export function applyConfigurationErrors(patch: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const undeclared: string[] = [];
  const atomics: string[] = [];
  const walk = (v: unknown, s: JSONSchemaProps | undefined, path: string, checkAtomics: boolean) => {
    const t = mergeType(s);
    if (t.kind === 'struct' && isObject(v)) {
      if (t.atomic && checkAtomics) atomics.push(path);
      for (const [k, child] of Object.entries(v)) {
        if (t.fields[k]) walk(child, t.fields[k], `${path}.${k}`, checkAtomics);
        else if (!t.open) undeclared.push(`${path}.${k}`);
      }
    } else if (t.kind === 'map' && isObject(v)) {
      if (t.atomic && checkAtomics) atomics.push(path);
      // findAtomics descends only into declared fields: a map's values are not searched
      for (const [k, child] of Object.entries(v)) walk(child, t.element, `${path}.${k}`, false);
    } else if ((t.kind === 'list' || t.kind === 'deduced') && Array.isArray(v)) {
      const atomic = t.kind === 'deduced' || t.listType === 'atomic';
      if (atomic && checkAtomics) atomics.push(path);
      v.forEach((child, i) => walk(child, t.kind === 'list' ? t.element : undefined, `${path}[${i}]`, checkAtomics));
    }
  };
  walk(patch, schema, '', true);
  if (undeclared.length > 0) {
    return [
      `failed to convert patch object to typed object: ${undeclared.map((p) => `${p}: field not declared in schema`).join(', ')}`,
    ];
  }
  if (atomics.length > 0) {
    return [`invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`];
  }
  return [];
}

/**
 * `live` merged with the apply configuration `patch` by structured-merge-diff's rules (what the apiserver does with a
 * mutation's apply configuration, without tracking field ownership): structs and granular maps merge field by field,
 * a `set` list gains the patch's new items, a `map` list merges items by their keys (new ones appended in the
 * patch's order), and everything else (scalars, atomic lists and maps) takes the patch's value.
 */
export function mergeApplyConfiguration(live: unknown, patch: unknown, schema: JSONSchemaProps | undefined): unknown {
  if (patch === undefined) return live;
  if (live === undefined) return patch;
  const t = mergeType(schema);
  if ((t.kind === 'struct' || t.kind === 'map' || t.kind === 'deduced') && isObject(live) && isObject(patch)) {
    if ((t.kind !== 'deduced' && t.atomic) || (Object.keys(live).length === 0 && Object.keys(patch).length === 0)) {
      return patch;
    }
    const fieldSchema = (k: string) => (t.kind === 'struct' ? t.fields[k] : t.kind === 'map' ? t.element : undefined);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(live)) out[k] = mergeApplyConfiguration(v, patch[k], fieldSchema(k));
    for (const [k, v] of Object.entries(patch)) if (!(k in live)) out[k] = v;
    return out;
  }
  if (t.kind === 'list' && t.listType !== 'atomic' && Array.isArray(live) && Array.isArray(patch)) {
    if (live.length === 0 && patch.length === 0) return patch;
    const keyOf = (item: unknown) =>
      JSON.stringify(t.listType === 'set' ? item : t.keys.map((k) => (isObject(item) ? item[k] : undefined)));
    const patchByKey = new Map(patch.map((item) => [keyOf(item), item]));
    const seen = new Set<string>();
    const out: unknown[] = [];
    for (const item of live) {
      const key = keyOf(item);
      seen.add(key);
      out.push(mergeApplyConfiguration(item, patchByKey.get(key), t.element));
    }
    for (const item of patch) if (!seen.has(keyOf(item))) out.push(item);
    return out;
  }
  return patch;
}

/**
 * `value` without the fields its schema does not declare (what the apiserver prunes from a custom resource after
 * mutating admission), and the paths dropped. Preserved unknown fields, embedded resources' apiVersion, kind and
 * metadata, and the root's are kept.
 */
export function pruneUndeclared(
  value: unknown,
  schema: JSONSchemaProps | undefined,
  path = '',
): { value: unknown; dropped: string[] } {
  const dropped: string[] = [];
  const walk = (v: unknown, s: JSONSchemaProps | undefined, at: string): unknown => {
    if (!s) return v;
    if (Array.isArray(v)) return v.map((x, i) => walk(x, s.items as JSONSchemaProps | undefined, `${at}[${i}]`));
    if (!isObject(v)) return v;
    if (s.properties || s['x-kubernetes-embedded-resource']) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const prop = s.properties?.[k];
        if (prop) {
          out[k] = walk(x, prop, `${at}.${k}`);
        } else if (
          s['x-kubernetes-preserve-unknown-fields'] ||
          (s['x-kubernetes-embedded-resource'] && ['apiVersion', 'kind', 'metadata'].includes(k))
        ) {
          out[k] = x;
        } else {
          dropped.push(`${at}.${k}`);
        }
      }
      return out;
    }
    if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      const ap = s.additionalProperties;
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, ap, `${at}.${k}`)]));
    }
    if (s['x-kubernetes-preserve-unknown-fields']) return v;
    // an object schema without properties and without preserving: every field is dropped
    for (const k of Object.keys(v)) dropped.push(`${at}.${k}`);
    return {};
  };
  return { value: walk(value, schema, path), dropped };
}
