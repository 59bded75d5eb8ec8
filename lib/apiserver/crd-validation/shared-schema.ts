import { deepEqual, isObject } from '../../apimachinery/json';
import { CrdManifest } from '../crd-manifest';

/**
 * The apiserver converts a CRD to its internal type before it validates it, and there, when every version's schema
 * equals the first one's by Go's `Semantic.DeepEqual`, the schemas are lifted into one top-level `spec.validation`:
 * only the first version's schema is validated (its errors are reported once, at `spec.validation.openAPIV3Schema`)
 * and stored for every version. Equal there means equal up to Go's zero values: an empty list or map is a nil one,
 * and a non-pointer field set to `""` or `false` is an absent one. So a second version whose root `metadata` says
 * `required: []` (refused alone) is accepted beside a first without it (measured on 1.28, 1.32 and 1.36).
 *
 * Returns the CRD with every version's schema replaced by the first one's (the same object) when they are lifted,
 * else the CRD itself.
 */
export function withSharedSchemaLifted(crd: CrdManifest): CrdManifest {
  const versions: readonly unknown[] | undefined = isObject(crd) && isObject(crd.spec) ? crd.spec.versions : undefined;
  if (!Array.isArray(versions) || versions.length < 2 || !versions.every(isObject)) return crd;
  const first = (versions[0] as any).schema;
  const firstValue = goValue(first, VALIDATION);
  const lifted = versions.every((v: any) => v.schema === first || deepEqual(goValue(v.schema, VALIDATION), firstValue));
  if (!lifted) return crd;
  return {
    ...crd,
    spec: { ...crd.spec, versions: versions.map((v: any) => (v.schema === first ? v : { ...v, schema: first })) },
  };
}

/** How a field of the internal types compares: a nested schema, or a value whose Go zero equals its absence. */
type Field =
  | 'zeroString'
  | 'zeroBool'
  | 'slice'
  | 'pointer'
  | { readonly schema: 'one' | 'slice' | 'map' | 'orArray' | 'orBool' | 'orStringArray' }
  | { readonly struct: Record<string, Field> };

const SCHEMA: Record<string, Field> = {};
const ONE: Field = { schema: 'one' };
Object.assign(SCHEMA, {
  id: 'zeroString',
  $schema: 'zeroString',
  description: 'zeroString',
  type: 'zeroString',
  format: 'zeroString',
  title: 'zeroString',
  pattern: 'zeroString',
  nullable: 'zeroBool',
  exclusiveMaximum: 'zeroBool',
  exclusiveMinimum: 'zeroBool',
  uniqueItems: 'zeroBool',
  'x-kubernetes-embedded-resource': 'zeroBool',
  'x-kubernetes-int-or-string': 'zeroBool',
  enum: 'slice',
  required: 'slice',
  'x-kubernetes-list-map-keys': 'slice',
  allOf: { schema: 'slice' },
  oneOf: { schema: 'slice' },
  anyOf: { schema: 'slice' },
  not: ONE,
  items: { schema: 'orArray' },
  additionalProperties: { schema: 'orBool' },
  additionalItems: { schema: 'orBool' },
  properties: { schema: 'map' },
  patternProperties: { schema: 'map' },
  definitions: { schema: 'map' },
  dependencies: { schema: 'orStringArray' },
  externalDocs: { struct: { description: 'zeroString', url: 'zeroString' } },
  'x-kubernetes-validations': {
    struct: { rule: 'zeroString', message: 'zeroString', messageExpression: 'zeroString', fieldPath: 'zeroString' },
  },
});
/** `CustomResourceValidation`: a pointer to the root schema. */
const VALIDATION: Record<string, Field> = { openAPIV3Schema: ONE };

/** The value as Go's `Semantic.DeepEqual` sees it: zero values and empty lists and maps dropped. */
function goValue(value: unknown, fields: Record<string, Field>): unknown {
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const kept = goField(v, fields[k] ?? 'pointer');
    if (kept !== undefined) out[k] = kept;
  }
  return out;
}

function goField(v: unknown, f: Field): unknown {
  if (v === null || v === undefined) return undefined;
  if (f === 'zeroString') return v === '' ? undefined : v;
  if (f === 'zeroBool') return v === false ? undefined : v;
  if (f === 'slice') return Array.isArray(v) && v.length === 0 ? undefined : v;
  if (f === 'pointer') return v;
  if ('struct' in f) {
    // a list of structs (the rules) or one struct (externalDocs)
    if (Array.isArray(v)) return v.length === 0 ? undefined : v.map((x) => goValue(x, f.struct));
    return goValue(v, f.struct);
  }
  switch (f.schema) {
    case 'one':
      return goValue(v, SCHEMA);
    case 'slice':
      return Array.isArray(v) && v.length === 0 ? undefined : Array.isArray(v) ? v.map((x) => goValue(x, SCHEMA)) : v;
    case 'map':
    case 'orStringArray':
      if (!isObject(v)) return v;
      if (Object.keys(v).length === 0) return undefined;
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, Array.isArray(x) ? x : goValue(x, SCHEMA)] as const),
      );
    case 'orArray':
      return Array.isArray(v) ? v.map((x) => goValue(x, SCHEMA)) : goValue(v, SCHEMA);
    case 'orBool':
      return typeof v === 'boolean' ? v : goValue(v, SCHEMA);
  }
}
