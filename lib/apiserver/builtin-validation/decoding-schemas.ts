import { FIELDS_ADDED_SINCE_1_32 } from './decoding-fields-added';
import { KUBERNETES_VERSIONS, KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { BUILTIN_FIELDS_MISSING } from '../admission-policy/builtin-fields-by-version';
import { builtinRawSchemas } from '../admission-policy/builtin-openapi';

/** An OpenAPI v3 schema of the built-in API as served (refs not populated, descriptions dropped). */
export interface RawSchema {
  readonly $ref?: string;
  readonly allOf?: readonly RawSchema[];
  readonly type?: string;
  readonly format?: string;
  readonly properties?: { readonly [name: string]: RawSchema };
  readonly additionalProperties?: RawSchema | boolean;
  readonly items?: RawSchema;
  readonly [key: string]: unknown;
}

/**
 * The properties of the built-in schemas that v1.36.3's apiserver serves and the vendored v1.32.13 schemas lack, with
 * the schemas new since 1.32 they refer to (`decoding-fields-added.ts`, written from the real 1.36 apiserver by
 * tools/vendor-openapi/added-fields.ts). Which of 1.33 to 1.35 added each is not recorded (no apiserver of theirs
 * here): they count as known from 1.33 on, so that an object using one is never refused where it may be served.
 */
interface Added {
  readonly serverVersion: string;
  readonly properties: { readonly [schema: string]: { readonly [property: string]: RawSchema } };
  /** `apiVersion/kind` of each kind 1.32's schemas lack: its schema's name (in `schemas`). */
  readonly kinds: { readonly [apiVersionKind: string]: string };
  readonly schemas: { readonly [name: string]: RawSchema };
}

function addedSince132(): Added {
  return FIELDS_ADDED_SINCE_1_32 as unknown as Added;
}

/**
 * The schema a `$ref` (or an `allOf` of one, how a property with a default refers) names.
 *
 * @internal
 */
export function refOf(schema: RawSchema): string | undefined {
  const ref = schema.$ref ?? schema.allOf?.[0]?.$ref;
  return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
}

/** The first minor version that has the properties added since 1.32 (see {@link Added}). */
const ADDED_FROM_MINOR = 33;

/**
 * The first minor version whose strict decoding of the kinds new since 1.32 is known: the apiserver's they were read
 * from. Between, a kind may have been served at an older schema; such an object is left to the checks that know its
 * version (a field missed rather than a valid object refused).
 */
const ADDED_KINDS_FROM_MINOR = minorOf(
  addedSince132().serverVersion.replace(/^v(\d+\.\d+).*/, '$1') as KubernetesVersion,
);

/** Where a property of a built-in schema stands on one version. */
export type PropertyLookup =
  { readonly known: true; readonly schema: RawSchema } | { readonly known: false; readonly knownOn?: string };

/** The built-in schemas as one Kubernetes version's strict decoding knows them. */
export interface VersionSchemas {
  /** The schema named `name` (`io.k8s.api.core.v1.ServicePort`), undefined when this version has none. */
  schema(name: string): RawSchema | undefined;
  /** Property `key` of the schema `name` on this version; when unknown, which versions have it, for the reader. */
  property(name: string, key: string): PropertyLookup;
  /** The schema declaring `apiVersion` `kind` on this version, undefined for custom resources and kinds it lacks. */
  kindSchema(apiVersion: string, kind: string): string | undefined;
}

const cache = new Map<KubernetesVersion, VersionSchemas>();

/**
 * Schemas that replaced an older one under a new name, the same field keeping its place: a version that lacks the
 * new one decodes the field as the old one (a PersistentVolumeClaim's `resources` was a ResourceRequirements up to
 * 1.28, `claims` and all: measured).
 */
const PREDECESSORS: { readonly [name: string]: string } = {
  'io.k8s.api.core.v1.VolumeResourceRequirements': 'io.k8s.api.core.v1.ResourceRequirements',
};

/**
 * The built-in schemas of `version`: v1.32.13's vendored ones, less what `BUILTIN_FIELDS_MISSING` says that version
 * lacks (1.28 and 1.36 read from their apiservers, the versions between from upstream's OpenAPI), plus from 1.33 on
 * what 1.36's apiserver added since 1.32.
 *
 * @internal
 */
export function versionSchemas(version: KubernetesVersion): VersionSchemas {
  const hit = cache.get(version);
  if (hit) return hit;
  const missing = BUILTIN_FIELDS_MISSING[version]?.missing ?? {};
  const withAdded = minorOf(version) >= ADDED_FROM_MINOR;
  const base = builtinRawSchemas({ group: '', version: '', kind: '' }).schemas as { [name: string]: RawSchema };
  const more = addedSince132();
  // the name this version knows the schema by
  const known = (name: string): string =>
    missing[name]?.includes('*') && PREDECESSORS[name] ? PREDECESSORS[name] : name;
  const schemas: VersionSchemas = {
    schema: (asNamed) => {
      const name = known(asNamed);
      if (missing[name]?.includes('*')) return undefined;
      return base[name] ?? (withAdded ? more.schemas[name] : undefined);
    },
    property: (asNamed, key) => {
      const name = known(asNamed);
      const own = base[name]?.properties?.[key] ?? more.schemas[name]?.properties?.[key];
      if (own && !missing[name]?.includes(key) && !missing[name]?.includes('*')) {
        if (base[name] || withAdded) return { known: true, schema: own };
      }
      const newer = more.properties[name]?.[key];
      if (newer && withAdded) return { known: true, schema: newer };
      return { known: false, knownOn: knownOn(name, key) };
    },
    kindSchema: (apiVersion, kind) => {
      const [group, v] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
      const name = builtinRawSchemas({ group, version: v, kind }).name;
      if (name) return missing[name]?.includes('*') ? undefined : name;
      return minorOf(version) >= ADDED_KINDS_FROM_MINOR ? more.kinds[`${apiVersion}/${kind}`] : undefined;
    },
  };
  cache.set(version, schemas);
  return schemas;
}

/**
 * Which supported versions know property `key` of `name` when some do (`Kubernetes 1.30 and newer have it`), for the
 * hint of an unknown field; undefined when none does (a typo).
 */
function knownOn(name: string, key: string): string | undefined {
  const base = builtinRawSchemas({ group: '', version: '', kind: '' }).schemas as { [name: string]: RawSchema };
  if (addedSince132().properties[name]?.[key]) {
    return `Kubernetes ${addedSince132().serverVersion.replace(/^v(\d+\.\d+).*/, '$1')} has it, added after 1.32`;
  }
  if (!base[name]?.properties?.[key]) return undefined;
  const lacking = (v: string) => {
    const m = BUILTIN_FIELDS_MISSING[v]?.missing[name];
    return m?.includes('*') || m?.includes(key);
  };
  const having = KUBERNETES_VERSIONS.filter((v) => !lacking(v));
  if (having.length === 0) return undefined;
  const newer = KUBERNETES_VERSIONS.slice(KUBERNETES_VERSIONS.indexOf(having[0]));
  return having.length === newer.length
    ? `Kubernetes ${having[0]} and newer have it`
    : `Kubernetes ${having.join(', ')} have it`;
}
