import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * The static CEL type of an expression, as the apiserver derives it from a structural schema
 * (`k8s.io/apiserver/pkg/cel/common.SchemaDeclType`), plus the size bounds its cost estimator uses.
 *
 * `maxSize` is the largest number of elements (lists), entries (maps) or bytes (strings) a value
 * can have: the schema's maxItems / maxProperties / maxLength*4, or an estimate from the 3 MiB
 * request limit when the schema gives no bound. `minSize` is the smallest JSON serialization.
 */
export type CelType =
  | { readonly kind: ScalarKind; readonly maxSize?: number; readonly minSize?: number }
  | { readonly kind: 'list'; readonly elem: CelType; readonly maxSize?: number; readonly minSize?: number }
  | {
      readonly kind: 'map';
      readonly key: CelType;
      readonly value: CelType;
      readonly maxSize?: number;
      readonly minSize?: number;
    }
  | {
      readonly kind: 'object';
      readonly name: string;
      /** Fields by their CEL (escaped) name. */
      readonly fields: { readonly [celName: string]: CelType };
      readonly maxSize?: number;
      readonly minSize?: number;
    }
  /** Opaque library types: Quantity, URL, IP, CIDR, Semver, Format, and optional values. */
  | {
      readonly kind: 'opaque';
      readonly name: OpaqueName;
      readonly maxSize?: number;
      readonly minSize?: number;
      /** Optional's value type. */ readonly of?: CelType;
    }
  /** `type(x)` values, e.g. `int` in `type(self) == int`. */
  | { readonly kind: 'type'; readonly of?: CelType; readonly maxSize?: number; readonly minSize?: number };

export type ScalarKind =
  'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'dyn' | 'timestamp' | 'duration';
export type OpaqueName =
  | 'Quantity'
  | 'URL'
  | 'IP'
  | 'CIDR'
  | 'Semver'
  | 'Format'
  | 'Optional'
  // the authorizer library of admission expressions (`kubernetes.authorization.Authorizer` ...)
  | 'authorization.Authorizer'
  | 'authorization.PathCheck'
  | 'authorization.GroupCheck'
  | 'authorization.ResourceCheck'
  | 'authorization.Decision'
  // no type at all: cel-go before v0.17 leaves an undeclared method call untyped (printed `<nil>`)
  | 'Untyped';

/** The apiserver's request size limit, the base of every size estimate for unbounded values. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;

export const DYN: CelType = { kind: 'dyn' };
export const INT: CelType = { kind: 'int' };
export const UINT: CelType = { kind: 'uint' };
export const DOUBLE: CelType = { kind: 'double' };
export const BOOL: CelType = { kind: 'bool' };
export const STRING: CelType = { kind: 'string' };
export const BYTES: CelType = { kind: 'bytes' };
export const NULL: CelType = { kind: 'null' };
export const TIMESTAMP: CelType = { kind: 'timestamp' };
export const DURATION: CelType = { kind: 'duration' };
export const listOf = (elem: CelType, maxSize?: number): CelType => ({ kind: 'list', elem, maxSize });
export const mapOf = (key: CelType, value: CelType, maxSize?: number): CelType => ({
  kind: 'map',
  key,
  value,
  maxSize,
});
export const opaque = (name: OpaqueName): CelType => ({ kind: 'opaque', name });
export const optionalOf = (of: CelType): CelType => ({ kind: 'opaque', name: 'Optional', of });

/** `list(string)`, `map(string, int)`, `object`…: the names cel-go prints in its errors. */
export function typeName(t: CelType): string {
  switch (t.kind) {
    case 'list':
      return `list(${typeName(t.elem)})`;
    case 'map':
      return `map(${typeName(t.key)}, ${typeName(t.value)})`;
    case 'object':
      return t.name;
    case 'opaque':
      return t.name === 'Untyped'
        ? '<nil>'
        : t.name === 'Optional'
          ? `optional_type(${typeName(t.of ?? { kind: 'dyn' })})`
          : `kubernetes.${t.name}`;
    case 'type':
      return t.of ? `type(${typeName(t.of)})` : 'type';
    case 'null':
      return 'null_type';
    case 'timestamp':
      return 'google.protobuf.Timestamp';
    case 'duration':
      return 'google.protobuf.Duration';
    default:
      return t.kind;
  }
}

const LETTERS_AND_DIGITS = /^[a-zA-Z][a-zA-Z0-9]*$/;

/** CEL's reserved words (cel-go's parser): not identifiers, so a field so named is escaped (`__name__`). @internal */
export const CEL_RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * The name a schema property has in CEL (`apiserver/pkg/cel.Escape`): reserved words become `__word__`,
 * `__` → `__underscores__`, `.` → `__dot__`, `-` → `__dash__`, `/` → `__slash__`.
 * Returns undefined for names CEL cannot express (they are invisible to rules).
 */
export function escapePropertyName(name: string): string | undefined {
  if (CEL_RESERVED.has(name)) return `__${name}__`;
  if (LETTERS_AND_DIGITS.test(name)) return name; // most names: nothing to escape
  if (!/^[_a-zA-Z][_a-zA-Z0-9./-]*$/.test(name)) return undefined;
  return name
    .replace(/__/g, '__underscores__')
    .replace(/\./g, '__dot__')
    .replace(/-/g, '__dash__')
    .replace(/\//g, '__slash__');
}

/** Whether a schema node is `x-kubernetes-int-or-string`. */
export const isIntOrString = (s: JSONSchemaProps): boolean => s['x-kubernetes-int-or-string'] === true;

/**
 * The declared type of a schema node (`SchemaDeclType`). `isResourceRoot` adds the fields every
 * resource root exposes (`apiVersion`, `kind`, `metadata.name`, `metadata.generateName`).
 *
 * Like the apiserver, unknown data is not exposed to rules: an object with
 * `x-kubernetes-preserve-unknown-fields` has only its declared properties, and an untyped node
 * (or a list of untyped items) is left out of its parent. A rule placed on such a node sees `dyn`.
 *
 * `maxSize` is the DeclType's `MaxElements` (0 for objects and scalars) and `minSize` its
 * `MinSerializedSize`: the numbers the cost estimator and the rule cardinality are computed from.
 * Results are cached per schema object (schemas are not mutated once checked).
 */
export function schemaCelType(
  s: JSONSchemaProps,
  isResourceRoot = false,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): CelType {
  return declType(s, isResourceRoot, since(version, 'enumBoundsStringSize')) ?? DYN;
}

type CacheKey = 'root' | 'plain' | 'root-unbounded-enums' | 'plain-unbounded-enums';
const declTypeCache = new WeakMap<object, Partial<Record<CacheKey, CelType | null>>>();

/**
 * `SchemaDeclType(s, isResourceRoot)`, or undefined where the apiserver returns nil. `enumBounds`: the longest enum
 * value bounds a string without maxLength (Kubernetes 1.29 and newer).
 */
export function declType(s: JSONSchemaProps, isResourceRoot = false, enumBounds = true): CelType | undefined {
  let cached = declTypeCache.get(s);
  if (!cached) declTypeCache.set(s, (cached = {}));
  const key: CacheKey = `${isResourceRoot ? 'root' : 'plain'}${enumBounds ? '' : '-unbounded-enums'}`;
  const hit = cached[key];
  if (hit !== undefined) return hit ?? undefined;
  const t = computeDeclType(s, isResourceRoot, enumBounds);
  cached[key] = t ?? null;
  return t;
}

/** apiserver/pkg/cel/limits.go */
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const UNBOUNDED_STRING = MAX_REQUEST_SIZE_BYTES - 2;

function computeDeclType(s: JSONSchemaProps, isResourceRoot: boolean, enumBounds: boolean): CelType | undefined {
  if (isIntOrString(s)) return { kind: 'dyn', minSize: 1, maxSize: UNBOUNDED_STRING };
  if (isResourceRoot) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!s.items) return undefined;
      const elem = declType(s.items, s.items['x-kubernetes-embedded-resource'] === true, enumBounds);
      if (!elem) return undefined;
      const maxSize = s.maxItems !== undefined ? zeroIfNegative(s.maxItems) : estimateMaxArrayItems(elem.minSize ?? 0);
      return { kind: 'list', elem, maxSize, minSize: 2 };
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (ap && typeof ap === 'object') {
        const value = declType(ap, ap['x-kubernetes-embedded-resource'] === true, enumBounds);
        if (!value) return undefined;
        const maxSize =
          s.maxProperties !== undefined
            ? zeroIfNegative(s.maxProperties)
            : estimateMaxAdditionalProperties(value.minSize ?? 0);
        // the key is apiservercel.StringType, whose MaxElements is 0
        return {
          kind: 'map',
          key: { kind: 'string', minSize: MIN_STRING_SIZE, maxSize: 0 },
          value,
          maxSize,
          minSize: 2,
        };
      }
      const fields: Record<string, CelType> = {};
      const required = new Set(s.required ?? []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(s.properties ?? {})) {
        const t = declType(prop, prop['x-kubernetes-embedded-resource'] === true, enumBounds);
        if (!t) continue;
        const celName = escapePropertyName(name);
        if (celName !== undefined) fields[celName] = t;
        // required properties without a default value are in every serialization (defaults are filled in server-side)
        if (required.has(name) && prop.default === undefined) minSize += name.length + (t.minSize ?? 0) + 4;
      }
      return { kind: 'object', name: 'object', fields, minSize, maxSize: 0 };
    }
    case 'string': {
      switch (s.format) {
        case 'byte':
          return {
            kind: 'bytes',
            minSize: MIN_STRING_SIZE,
            maxSize: s.maxLength !== undefined ? zeroIfNegative(s.maxLength) : UNBOUNDED_STRING,
          };
        case 'duration':
          return { kind: 'duration', minSize: MIN_DURATION_SIZE_JSON, maxSize: MAX_DURATION_SIZE_JSON };
        case 'date':
          return { kind: 'timestamp', minSize: JSON_DATE_SIZE, maxSize: JSON_DATE_SIZE };
        case 'date-time':
          return { kind: 'timestamp', minSize: MIN_DATETIME_SIZE_JSON, maxSize: MAX_DATETIME_SIZE_JSON };
      }
      let maxSize = UNBOUNDED_STRING;
      // maxLength counts code points, a code point takes up to 4 bytes
      if (s.maxLength !== undefined) {
        maxSize = zeroIfNegative(s.maxLength) * 4;
      } else if (enumBounds && s.enum && s.enum.length > 0) {
        maxSize = Math.max(0, ...s.enum.map((e) => (typeof e === 'string' ? Buffer.byteLength(e) : 0)));
      }
      return { kind: 'string', minSize: MIN_STRING_SIZE, maxSize };
    }
    case 'boolean':
      return { kind: 'bool', minSize: MIN_BOOL_SIZE, maxSize: 0 };
    case 'number':
      return { kind: 'double', minSize: MIN_NUMBER_SIZE, maxSize: 0 };
    case 'integer':
      return { kind: 'int', minSize: MIN_NUMBER_SIZE, maxSize: 0 };
  }
  return undefined;
}

function zeroIfNegative(n: number): number {
  return n < 0 ? 0 : n;
}

/**
 * `WithTypeAndObjectMeta`: a resource root exposes kind, apiVersion and metadata.{name,generateName}. Unless the
 * schema already declares all of them as strings, they replace what it declares (metadata becomes exactly
 * `{name, generateName}`), as in the apiserver.
 */
function withTypeAndObjectMeta(s: JSONSchemaProps): JSONSchemaProps {
  const p = s.properties;
  const meta = p?.metadata;
  if (
    p &&
    p.kind?.type === 'string' &&
    p.apiVersion?.type === 'string' &&
    meta?.type === 'object' &&
    meta.properties &&
    meta.properties.name?.type === 'string' &&
    meta.properties.generateName?.type === 'string'
  ) {
    return s;
  }
  const stringType: JSONSchemaProps = { type: 'string' };
  return {
    ...s,
    properties: {
      ...p,
      kind: stringType,
      apiVersion: stringType,
      metadata: { type: 'object', properties: { name: stringType, generateName: stringType } },
    },
  };
}

/** `estimateMaxArrayItemsFromMinSize`: each item takes its smallest serialization plus a comma. */
export function estimateMaxArrayItems(minItemSize: number): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minItemSize + 1));
}

/** `estimateMaxAdditionalPropertiesFromMinSize`: each entry takes `"":` + its value + a comma (and a 2-byte key). */
export function estimateMaxAdditionalProperties(minValueSize: number): number {
  return Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minValueSize + 6));
}

/** Whether `value` (an argument type) may be passed where `param` is expected. */
export function isAssignable(param: CelType, value: CelType): boolean {
  if (param.kind === 'dyn' || value.kind === 'dyn') return true;
  if (param.kind !== value.kind) return false;
  switch (param.kind) {
    case 'list':
      return isAssignable(param.elem, (value as { elem: CelType }).elem);
    case 'map': {
      const v = value as { key: CelType; value: CelType };
      return isAssignable(param.key, v.key) && isAssignable(param.value, v.value);
    }
    case 'object':
      return true; // schema objects are structurally typed for our purposes
    case 'opaque': {
      const v = value as { name: string; of?: CelType };
      // optionals of different value types do not mix (`optional_type(int)` is not `optional_type(bool)`)
      return param.name === v.name && (!param.of || !v.of || isAssignable(param.of, v.of));
    }
    default:
      return true;
  }
}

/** The common type of two branches (ternary, list literal): the type when they agree, else dyn. */
export function joinTypes(a: CelType, b: CelType): CelType {
  if (a.kind === 'null') return b;
  if (b.kind === 'null') return a;
  if (isAssignable(a, b) && a.kind !== 'dyn') return a;
  if (isAssignable(b, a) && b.kind !== 'dyn') return b;
  return DYN;
}
