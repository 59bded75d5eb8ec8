import { child, index, isObject, key } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { ApiserverChange, firstVersionWith, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { CrdManifest } from '../crd-manifest';
import { withSharedSchemaLifted } from './shared-schema';

/**
 * What the apiserver refuses before it validates a CustomResourceDefinition at all: the body is decoded into the Go
 * types of apiextensions.k8s.io/v1, so a field of the wrong JSON type (a string where the type has a list, a fraction
 * where it has an integer, a time that does not parse) cannot be decoded (`400 … cannot be handled as a
 * CustomResourceDefinition: json: cannot unmarshal string into Go struct field …`), and a field the types do not have
 * is refused by strict field validation, `kubectl apply`'s default (`strict decoding error: unknown field …`).
 *
 * A manifest of another apiVersion or kind is returned as it is, without errors. Otherwise returns those errors, and
 * the manifest as the decoder leaves it, which is what the apiserver then validates: a
 * JSON `null` leaves its Go field at the zero value (`default: null` is no default, `required: null` no list), and an
 * `items` that is neither a schema nor a list of schemas is ignored. Subtrees that need no change are returned as they
 * are (the same objects), so that memos keyed by schema objects still find them.
 *
 * `versions`: decoded as these apiservers decode it (they must have equal {@link decodingKey}s): a field of
 * {@link FIELDS_SINCE} their types lack is refused as unknown where decoding is strict, and dropped where it is not
 * (below `items`, `additionalProperties`, `dependencies`); one they drop while its feature gate is off is dropped
 * everywhere. `ignored` warns of each drop. Without `versions`, the newest types.
 *
 * Measured against kube-apiserver 1.28, 1.32 and 1.36 (`bench/crd-differential.ts`, `test/apiserver/crd-validation`,
 * `test/app/kubernetes-versions.test.ts`).
 *
 * @internal
 */
export function decodeCrd(
  manifest: CrdManifest,
  versions?: readonly KubernetesVersion[],
): { readonly decoded: CrdManifest; readonly issues: Issue[]; readonly ignored: Issue[] } {
  const issues: Issue[] = [];
  const ignored: Issue[] = [];
  // another apiVersion or kind is refused as such (validateCrdManifest): these types are v1's
  if (
    !isObject(manifest) ||
    manifest.apiVersion !== 'apiextensions.k8s.io/v1' ||
    manifest.kind !== 'CustomResourceDefinition'
  ) {
    return { decoded: manifest, issues, ignored };
  }
  const decoded = decode(manifest, CRD, '', {
    issues,
    ignored,
    lacking: new Set(versions?.length ? fieldsWhere(versions[0], 'lacked') : []),
    gatedOff: new Set(versions?.length ? fieldsWhere(versions[0], 'gated off') : []),
    versions: versions ?? [],
  });
  // the internal type the apiserver validates lifts schemas the versions share (shared-schema.ts)
  return { decoded: withSharedSchemaLifted((decoded === DROP ? manifest : decoded) as CrdManifest), issues, ignored };
}

/**
 * Fields of the types (`Struct.field`) that older apiservers do not have (`since`: the change that brought the field),
 * or drop while a feature gate is off by default (`onByDefault`: the change that turned it on), and what dropping one
 * does. 1.28 refuses `optionalOldSelf` as an unknown field, and drops it below `items` (measured); 1.29 drops it
 * everywhere (upstream's data: `APISERVER_CHANGES.optionalOldSelfField`).
 */
const FIELDS_SINCE: Record<
  string,
  {
    readonly since: ApiserverChange;
    readonly onByDefault: ApiserverChange;
    readonly gate: string;
    readonly whenDropped: string;
  }
> = {
  'ValidationRule.optionalOldSelf': {
    since: 'optionalOldSelfField',
    onByDefault: 'optionalOldSelf',
    gate: 'CRDValidationRatcheting',
    whenDropped: 'the rule runs without it, as a transition rule: on updates only, oldSelf not optional',
  },
};

/** The fields (`Struct.field`) that `version`'s types lack, or that it drops with their feature gate off. */
function fieldsWhere(version: KubernetesVersion, what: 'lacked' | 'gated off'): string[] {
  return Object.entries(FIELDS_SINCE)
    .filter(([, f]) =>
      what === 'lacked' ? !since(version, f.since) : since(version, f.since) && !since(version, f.onByDefault),
    )
    .map(([field]) => field);
}

/**
 * What sets the types a version decodes a CRD into apart: versions with equal keys decode it alike, and the newest
 * types' key is the empty string.
 *
 * @internal
 */
export function decodingKey(version: KubernetesVersion): string {
  const gatedOff = fieldsWhere(version, 'gated off').map((f) => `${f} gated off`);
  return [...fieldsWhere(version, 'lacked'), ...gatedOff].join(',');
}

/** One decoding: where its errors and warnings go, and the fields its versions lack or drop. */
interface Decoding {
  readonly issues: Issue[];
  readonly ignored: Issue[];
  readonly lacking: ReadonlySet<string>;
  readonly gatedOff: ReadonlySet<string>;
  readonly versions: readonly KubernetesVersion[];
}

/** A Go type of the apiextensions.k8s.io/v1 API, as its JSON decoder reads it. */
type GoType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'float64'
  /** `[]byte`: base64 in JSON */
  | 'bytes'
  /** `metav1.Time`: RFC 3339 */
  | 'time'
  /** `apiextensionsv1.JSON`: any JSON value */
  | 'json'
  /** `*JSONSchemaPropsOrArray`: a schema or a list of schemas; anything else is ignored */
  | 'schemaOrArray'
  /** `*JSONSchemaPropsOrBool`: a boolean or a schema; anything else is an error */
  | 'schemaOrBool'
  /** `JSONSchemaPropsOrStringArray`: a schema or a list of strings; anything else is ignored */
  | 'schemaOrStringArray'
  | { readonly list: GoType; readonly goName: string }
  | { readonly map: GoType; readonly goName: string }
  | Struct;

interface Struct {
  readonly struct: string;
  /** JSON field names; filled in below for the recursive schema type. */
  readonly fields: Record<string, GoType>;
}

const list = (of: GoType, name: string): GoType => ({ list: of, goName: name });
const map = (of: GoType, name: string): GoType => ({ map: of, goName: name });
const struct = (name: string, fields: Record<string, GoType>): Struct => ({ struct: name, fields });

const STRINGS = list('string', '[]string');
const SCHEMA: Struct = struct('JSONSchemaProps', {});
Object.assign(SCHEMA.fields, {
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  type: 'string',
  format: 'string',
  title: 'string',
  default: 'json',
  maximum: 'float64',
  exclusiveMaximum: 'bool',
  minimum: 'float64',
  exclusiveMinimum: 'bool',
  maxLength: 'int64',
  minLength: 'int64',
  pattern: 'string',
  maxItems: 'int64',
  minItems: 'int64',
  uniqueItems: 'bool',
  multipleOf: 'float64',
  enum: list('json', '[]v1.JSON'),
  maxProperties: 'int64',
  minProperties: 'int64',
  required: STRINGS,
  items: 'schemaOrArray',
  allOf: list(SCHEMA, '[]v1.JSONSchemaProps'),
  oneOf: list(SCHEMA, '[]v1.JSONSchemaProps'),
  anyOf: list(SCHEMA, '[]v1.JSONSchemaProps'),
  not: SCHEMA,
  properties: map(SCHEMA, 'map[string]v1.JSONSchemaProps'),
  additionalProperties: 'schemaOrBool',
  patternProperties: map(SCHEMA, 'map[string]v1.JSONSchemaProps'),
  dependencies: map('schemaOrStringArray', 'v1.JSONSchemaDependencies'),
  additionalItems: 'schemaOrBool',
  definitions: map(SCHEMA, 'v1.JSONSchemaDefinitions'),
  externalDocs: struct('ExternalDocumentation', { description: 'string', url: 'string' }),
  example: 'json',
  nullable: 'bool',
  'x-kubernetes-preserve-unknown-fields': 'bool',
  'x-kubernetes-embedded-resource': 'bool',
  'x-kubernetes-int-or-string': 'bool',
  'x-kubernetes-list-map-keys': STRINGS,
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  'x-kubernetes-validations': list(
    struct('ValidationRule', {
      rule: 'string',
      message: 'string',
      messageExpression: 'string',
      reason: 'string',
      fieldPath: 'string',
      optionalOldSelf: 'bool',
    }),
    'v1.ValidationRules',
  ),
});

const NAMES = struct('CustomResourceDefinitionNames', {
  plural: 'string',
  singular: 'string',
  shortNames: STRINGS,
  kind: 'string',
  listKind: 'string',
  categories: STRINGS,
});

const OBJECT_META = struct('ObjectMeta', {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  generation: 'int64',
  creationTimestamp: 'time',
  deletionTimestamp: 'time',
  deletionGracePeriodSeconds: 'int64',
  labels: map('string', 'map[string]string'),
  annotations: map('string', 'map[string]string'),
  ownerReferences: list(
    struct('OwnerReference', {
      apiVersion: 'string',
      kind: 'string',
      name: 'string',
      uid: 'string',
      controller: 'bool',
      blockOwnerDeletion: 'bool',
    }),
    '[]v1.OwnerReference',
  ),
  finalizers: STRINGS,
  managedFields: list(
    struct('ManagedFieldsEntry', {
      manager: 'string',
      operation: 'string',
      apiVersion: 'string',
      time: 'time',
      fieldsType: 'string',
      fieldsV1: 'json',
      subresource: 'string',
    }),
    '[]v1.ManagedFieldsEntry',
  ),
});

const VERSION = struct('CustomResourceDefinitionVersion', {
  name: 'string',
  served: 'bool',
  storage: 'bool',
  deprecated: 'bool',
  deprecationWarning: 'string',
  schema: struct('CustomResourceValidation', { openAPIV3Schema: SCHEMA }),
  subresources: struct('CustomResourceSubresources', {
    status: struct('CustomResourceSubresourceStatus', {}),
    scale: struct('CustomResourceSubresourceScale', {
      specReplicasPath: 'string',
      statusReplicasPath: 'string',
      labelSelectorPath: 'string',
    }),
  }),
  additionalPrinterColumns: list(
    struct('CustomResourceColumnDefinition', {
      name: 'string',
      type: 'string',
      format: 'string',
      description: 'string',
      priority: 'int32',
      jsonPath: 'string',
    }),
    '[]v1.CustomResourceColumnDefinition',
  ),
  // Kubernetes 1.30+; what older versions make of it is version-support.ts's
  selectableFields: list(struct('SelectableField', { jsonPath: 'string' }), '[]v1.SelectableField'),
});

const CRD = struct('CustomResourceDefinition', {
  apiVersion: 'string',
  kind: 'string',
  metadata: OBJECT_META,
  spec: struct('CustomResourceDefinitionSpec', {
    group: 'string',
    names: NAMES,
    scope: 'string',
    versions: list(VERSION, '[]v1.CustomResourceDefinitionVersion'),
    conversion: struct('CustomResourceConversion', {
      strategy: 'string',
      webhook: struct('WebhookConversion', {
        clientConfig: struct('WebhookClientConfig', {
          url: 'string',
          service: struct('ServiceReference', { namespace: 'string', name: 'string', path: 'string', port: 'int32' }),
          caBundle: 'bytes',
        }),
        conversionReviewVersions: STRINGS,
      }),
    }),
    preserveUnknownFields: 'bool',
  }),
  status: struct('CustomResourceDefinitionStatus', {
    conditions: list(
      struct('CustomResourceDefinitionCondition', {
        type: 'string',
        status: 'string',
        lastTransitionTime: 'time',
        reason: 'string',
        message: 'string',
      }),
      '[]v1.CustomResourceDefinitionCondition',
    ),
    acceptedNames: NAMES,
    storedVersions: STRINGS,
  }),
});

/** A field the decoder leaves out of the decoded manifest. */
const DROP = Symbol('drop');

/** Go's name of a JSON value's kind in `cannot unmarshal <kind>` (a number names itself where it is not integral). */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

function goName(t: GoType): string {
  if (typeof t === 'string') {
    return (
      { bytes: '[]uint8', time: 'v1.Time', json: 'v1.JSON' }[t as string] ??
      (t.startsWith('schema') ? 'v1.JSONSchemaProps' : t)
    );
  }
  if ('struct' in t) return `v1.${t.struct}`;
  return t.goName;
}

const EXPECTED: Record<string, string> = {
  string: 'a string',
  bool: 'true or false',
  int32: 'an integer of 32 bits',
  int64: 'an integer',
  float64: 'a number',
  bytes: 'base64 data (standard encoding, padded)',
  time: 'a time in RFC 3339 (2006-01-02T15:04:05Z)',
  schemaOrBool: 'true, false or a schema',
};

function expected(t: GoType): string {
  if (typeof t === 'string') return EXPECTED[t] ?? 'a schema';
  if ('list' in t) return 'a list';
  return 'an object';
}

function typeError(path: string, value: unknown, t: GoType, cause: string): Issue {
  return {
    path,
    message: `Invalid value: must be ${expected(t)}: the apiserver cannot decode it (${cause})`,
    value,
  };
}

/** The JSON names of a struct that differ from `name` only in case: what a misspelt field likely meant. */
function didYouMean(s: Struct, name: string): string {
  const match = Object.keys(s.fields).find((f) => f.toLowerCase() === name.toLowerCase());
  return match ? ` (did you mean ${match}?)` : '';
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * `value` decoded as `t` at `path`: the value itself when nothing changes, a changed copy, or {@link DROP} where the
 * decoder leaves the Go field at its zero value. Errors go to `issues`.
 */
function decode(value: unknown, t: GoType, path: string, d: Decoding, strict = true): unknown {
  const issues = d.issues;
  if (value === null || value === undefined) return DROP;
  if (typeof t === 'string') return decodeScalar(value, t, path, d);
  if ('list' in t) {
    if (!Array.isArray(value)) {
      issues.push(typeError(path, value, t, `json: cannot unmarshal ${jsonKind(value)} into ${t.goName}`));
      return value;
    }
    return decodeEntries(
      value,
      (v, i) => decode(v, t.list, index(path, i), d, strict),
      (v) => zeroOf(t.list, v),
    );
  }
  if (!isObject(value)) {
    issues.push(typeError(path, value, t, `json: cannot unmarshal ${jsonKind(value)} into ${goName(t)}`));
    return value;
  }
  if ('map' in t) {
    const inner = t.map;
    return decodeFields(
      value,
      (k, v) => decode(v, inner, key(path, k), d, strict),
      (v) => zeroOf(inner, v),
    );
  }
  return decodeFields(
    value,
    (k, v) => {
      const name = `${t.struct}.${k}`;
      const field = d.lacking.has(name) ? undefined : t.fields[k];
      if (field === undefined) return unknownField(t, k, v, child(path, k), d, strict);
      const decodedField = decode(v, field, child(path, k), d, strict);
      if (!d.gatedOff.has(name) || decodedField === DROP) return decodedField;
      // a field the types have, which the versions drop everywhere while its feature gate is off
      const f = FIELDS_SINCE[name];
      const versions = d.versions.join(', ');
      d.ignored.push({
        path: child(path, k),
        severity: 'warning',
        message: `Kubernetes ${versions} ${d.versions.length === 1 ? 'drops' : 'drop'} it while the ${f.gate} feature gate is off, the default there (on from ${firstVersionWith(f.onByDefault)}): ${f.whenDropped}`,
      });
      return DROP;
    },
    (v, k) => {
      // strict decoding refuses an unknown field whatever its value, null too (measured on 1.28)
      if (strict && (d.lacking.has(`${t.struct}.${k}`) || t.fields[k] === undefined)) {
        unknownField(t, k, v, child(path, k), d, strict);
      }
      return DROP;
    },
  );
}

/**
 * A field `k` of `value` that struct `t` does not have, or that the decoding's versions lack: refused where decoding is
 * strict, kept where it is not (the checks ignore it) unless a newer version has it (then dropped, with a warning).
 */
function unknownField(t: Struct, k: string, v: unknown, path: string, d: Decoding, strict: boolean): unknown {
  const lacked = d.lacking.has(`${t.struct}.${k}`) ? FIELDS_SINCE[`${t.struct}.${k}`] : undefined;
  const newer = lacked ? ` on Kubernetes ${d.versions.join(', ')} (it has from ${firstVersionWith(lacked.since)})` : '';
  // below items and the like the decoder is not strict: an unknown field is dropped without a word
  if (!strict) {
    if (!lacked) return v;
    d.ignored.push({
      path,
      severity: 'warning',
      message: `${goName(t)} has no such field${newer}, and its decoder drops it here without a word (below items, additionalProperties and dependencies): ${lacked.whenDropped}`,
    });
    return DROP;
  }
  d.issues.push({
    path,
    message: `Forbidden: unknown field "${k}": ${goName(t)} has no such field${newer}, and kubectl apply refuses it (strict field validation)${lacked ? '' : didYouMean(t, k)}`,
  });
  return v;
}

/** A list or map's `null` entry: the element type's zero value (Go decodes null into it and leaves it zero). */
function zeroOf(t: GoType, v: unknown): unknown {
  if (v !== null) return v;
  if (t === 'string' || t === 'bytes') return '';
  if (t === 'bool') return false;
  if (t === 'int32' || t === 'int64' || t === 'float64') return 0;
  if (t === 'json' || t === 'time') return null;
  if (typeof t === 'object' && 'list' in t) return null;
  return {};
}

function decodeScalar(value: unknown, t: string, path: string, d: Decoding): unknown {
  const issues = d.issues;
  const cannot = (shown = jsonKind(value)) =>
    issues.push(typeError(path, value, t as GoType, `json: cannot unmarshal ${shown} into ${goName(t as GoType)}`));
  switch (t) {
    case 'json':
      return value;
    case 'string':
      if (typeof value !== 'string') cannot();
      return value;
    case 'bool':
      if (typeof value !== 'boolean') cannot();
      return value;
    case 'float64':
      if (typeof value !== 'number') cannot();
      return value;
    case 'int32':
    case 'int64': {
      if (typeof value !== 'number') {
        cannot();
      } else if (!Number.isInteger(value) || Math.abs(value) >= (t === 'int32' ? 2 ** 31 : 2 ** 63)) {
        cannot(`number ${value}`);
      }
      return value;
    }
    case 'bytes':
      if (typeof value !== 'string') {
        cannot();
      } else if (!/^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value)) {
        issues.push(typeError(path, value, 'bytes', 'illegal base64 data'));
      }
      return value;
    case 'time':
      if (typeof value !== 'string') {
        cannot();
      } else if (!RFC3339.test(value) || Number.isNaN(Date.parse(value))) {
        issues.push(
          typeError(path, value, 'time', `parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05Z07:00"`),
        );
      }
      return value;
    // These three decode their content with a decoder of their own (custom UnmarshalJSON), which is not strict:
    // below them an unknown field is dropped, not refused (measured on 1.32: `items.maxlength` accepted)
    case 'schemaOrArray':
      // `items: "x"` or `items: true`: the decoder reads neither a schema nor a list, and leaves items unset
      if (Array.isArray(value)) return decode(value, list(SCHEMA, '[]v1.JSONSchemaProps'), path, d, false);
      return isObject(value) ? decode(value, SCHEMA, path, d, false) : DROP;
    case 'schemaOrStringArray':
      if (Array.isArray(value)) return decode(value, STRINGS, path, d, false);
      return isObject(value) ? decode(value, SCHEMA, path, d, false) : DROP;
    default: // schemaOrBool
      if (typeof value === 'boolean') return value;
      if (isObject(value)) return decode(value, SCHEMA, path, d, false);
      issues.push(typeError(path, value, 'schemaOrBool', 'boolean or JSON schema expected'));
      return value;
  }
}

/** An object's fields decoded one by one; the object itself when none changed. */
function decodeFields(
  value: Record<string, unknown>,
  each: (k: string, v: unknown) => unknown,
  nullEntry: (v: unknown, k: string) => unknown,
): unknown {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const d = v === null ? nullEntry(v, k) : each(k, v);
    if (d === v) continue;
    out ??= { ...value };
    if (d === DROP) delete out[k];
    else out[k] = d;
  }
  return out ?? value;
}

/** A list's elements decoded one by one; the list itself when none changed. */
function decodeEntries(
  value: unknown[],
  each: (v: unknown, i: number) => unknown,
  nullEntry: (v: unknown) => unknown,
): unknown {
  let out: unknown[] | undefined;
  value.forEach((v, i) => {
    const d = v === null ? nullEntry(v) : each(v, i);
    if (d === v) return;
    out ??= [...value];
    out[i] = d === DROP ? nullEntry(null) : d;
  });
  return out ?? value;
}
