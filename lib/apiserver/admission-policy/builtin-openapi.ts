import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * The built-in API of kube-apiserver v1.32.13 as its OpenAPI v3 documents and discovery describe it, vendored in
 * `builtin-openapi.json` (written by `npx projen vendor-openapi` from the real server; descriptions dropped; a
 * `[real-apiserver]` test fails when it differs from the live server's).
 */
interface Vendored {
  readonly serverVersion: string;
  readonly groupVersions: {
    readonly [gv: string]: { readonly [resource: string]: { readonly kind: string; readonly namespaced: boolean } };
  };
  readonly schemas: { readonly [name: string]: OpenApiSchema };
}

/** The parts of an OpenAPI v3 schema the type checker reads. */
interface OpenApiSchema {
  readonly $ref?: string;
  readonly allOf?: readonly OpenApiSchema[];
  readonly type?: string;
  readonly format?: string;
  readonly properties?: { readonly [name: string]: OpenApiSchema };
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly 'x-kubernetes-group-version-kind'?: ReadonlyArray<{
    readonly group: string;
    readonly version: string;
    readonly kind: string;
  }>;
  readonly [key: string]: unknown;
}

let vendored: Vendored | undefined;
const VENDORED_FILE = 'builtin-openapi.json';

function data(): Vendored {
  return (vendored ??= JSON.parse(readFileSync(join(__dirname, VENDORED_FILE), 'utf8')) as Vendored);
}

/**
 * The vendored component schemas as served (refs not populated), and the name of the one declaring `gvk`.
 *
 * @internal
 */
export function builtinRawSchemas(gvk: GroupVersionKind): {
  readonly name?: string;
  readonly schemas: Vendored['schemas'];
} {
  return { name: schemaNameOf(gvk), schemas: data().schemas };
}

let schemaNames: Map<string, string> | undefined;

/**
 * The name of the component schema declaring `gvk`, from an index of the vendored schemas built once: synth asks
 * for every object and every version of the range (a custom resource's kind is in none), and a scan of the
 * vendored schemas per question was a tenth of a large app's synth.
 */
function schemaNameOf(gvk: GroupVersionKind): string | undefined {
  if (!schemaNames) {
    schemaNames = new Map();
    const schemas = data().schemas;
    for (const name of Object.keys(schemas)) {
      for (const g of schemas[name]['x-kubernetes-group-version-kind'] ?? []) {
        const key = gvkString(g);
        if (!schemaNames.has(key)) schemaNames.set(key, name); // the first declaring schema, as the scan found it
      }
    }
  }
  return schemaNames.get(gvkString(gvk));
}

/** The apiserver version the vendored schemas come from (`v1.32.13`). */
export function builtinApiVersion(): string {
  return data().serverVersion;
}

/** A group-version-kind; `group` is '' for the core group. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `apps/v1, Kind=Deployment` (`/v1, Kind=Pod` for the core group), as Go's `GroupVersionKind.String()`. */
export function gvkString(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

/** The kind a built-in resource holds (the RESTMapper's `KindsFor`), or undefined when the server has no such resource. */
export function builtinKindFor(
  group: string,
  version: string,
  resource: string,
): { kind: string; namespaced: boolean } | undefined {
  return data().groupVersions[group === '' ? version : `${group}/${version}`]?.[resource];
}

const resolvedSchemas = new Map<string, JSONSchemaProps | null>();

/**
 * The schema of a built-in kind with every `$ref` replaced by what it refers to (`resolver.PopulateRefs`: a ref
 * wrapped in `allOf` counts, a circular ref becomes `{type: object}`), or undefined when no schema declares that kind.
 * Built-in int-or-string fields carry `format: int-or-string` where CRDs carry `x-kubernetes-int-or-string`; both
 * mean the same to the apiserver's CEL types, so the format is translated.
 */
export function builtinSchema(gvk: GroupVersionKind): JSONSchemaProps | undefined {
  const key = gvkString(gvk);
  let hit = resolvedSchemas.get(key);
  if (hit === undefined) {
    const name = schemaNameOf(gvk);
    hit = name ? populateRefs(data().schemas[name], new Set([name])) : null;
    resolvedSchemas.set(key, hit);
  }
  return hit ?? undefined;
}

/** The named component schema (`io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`), refs populated. */
export function builtinComponent(name: string): JSONSchemaProps | undefined {
  const s = data().schemas[name];
  return s ? populateRefs(s, new Set([name])) : undefined;
}

function refOf(s: OpenApiSchema): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref.replace(/^#\/components\/schemas\//, '');
  for (const a of s.allOf ?? []) {
    const r = refOf(a);
    if (r) return r;
  }
  return undefined;
}

function populateRefs(schema: OpenApiSchema, visited: Set<string>): JSONSchemaProps {
  const ref = refOf(schema);
  let s = schema;
  if (ref !== undefined) {
    if (visited.has(ref)) return { type: 'object' };
    const target = data().schemas[ref];
    if (!target) throw new Error(`builtin OpenAPI: unresolved $ref ${ref}`);
    visited.add(ref);
    try {
      return populateRefs(target, visited);
    } finally {
      visited.delete(ref);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'allOf' || k === '$ref' || k === 'x-kubernetes-group-version-kind') continue;
    out[k] = v;
  }
  if (s.format === 'int-or-string') out['x-kubernetes-int-or-string'] = true;
  if (s.properties) {
    out.properties = Object.fromEntries(Object.entries(s.properties).map(([n, p]) => [n, populateRefs(p, visited)]));
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    out.additionalProperties = populateRefs(s.additionalProperties, visited);
  }
  if (s.items) out.items = populateRefs(s.items, visited);
  return out as JSONSchemaProps;
}
