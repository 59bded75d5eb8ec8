import { BUILTIN_FIELDS_MISSING } from './builtin-fields-by-version';
import { builtinRawSchemas } from './builtin-openapi';
import { GATED_FIELD_GATES, GATED_FIELD_VERDICTS } from './gated-fields-by-version';

/**
 * The fields of a built-in object that Kubernetes `version` does not know: properties the vendored v1.32.13 schema
 * has and that version's OpenAPI lacks (`builtin-fields-by-version.ts`: 1.28 and 1.36 read from their real
 * apiservers, 1.29 to 1.35 from upstream's OpenAPI at their release tag, 1.37, which has no apiserver here, from the
 * Go types upstream's OpenAPI is generated from, k8s.io/api v0.37.0-beta.0: it lacks none), as field paths
 * (`spec.template.spec.securityContext.appArmorProfile`). Empty for 1.32, for kinds without a vendored schema and for
 * values the schema does not describe. A field a version knows but keeps behind a feature gate that is off by
 * default is `gatedFieldsSet`'s.
 *
 * @internal
 */
export function fieldsUnknownTo(object: any, version: string): string[] {
  const missing = BUILTIN_FIELDS_MISSING[version]?.missing;
  if (!missing) return [];
  const found: string[] = [];
  walkBuiltin(
    object,
    (schema, key, path) => {
      if (missing[schema]?.includes('*')) {
        found.push(path);
        return 'stop';
      }
      if (key !== undefined && missing[schema]?.includes(key)) {
        found.push(path);
        return 'stop';
      }
      return 'descend';
    },
    (name) => missing[name]?.includes('*') === true,
  );
  return found;
}

/** A field an object sets that some version keeps behind a feature gate. */
export interface GatedField {
  /** The field's path in the object (`spec.template.spec.hostUsers`). */
  readonly path: string;
  /** `schema.property`, the key of `GATED_FIELD_VERDICTS`. */
  readonly field: string;
  readonly gate: string;
}

/**
 * The fields of a built-in object that a feature gate keeps: some version's apiserver accepts the object and drops
 * them on create while the gate is off (`gated-fields-by-version.ts`, measured on 1.28, 1.32 and 1.36).
 *
 * @internal
 */
export function gatedFieldsSet(object: any): GatedField[] {
  const found: GatedField[] = [];
  walkBuiltin(object, (schema, key, path) => {
    const field = `${schema}.${key}`;
    if (key !== undefined && GATED_FIELD_GATES[field]) found.push({ path, field, gate: GATED_FIELD_GATES[field] });
    return 'descend';
  });
  return found;
}

/**
 * What `version` does with a gated field: measured (`kept`, `dropped`, …) for 1.28, 1.32 and 1.36; for a version
 * between them, `maybe-dropped` when either measured neighbour drops it (gates move from off to on, never back: a
 * field dropped by the newer neighbour was dropped by the older too, one dropped by the older may still be dropped).
 *
 * @internal
 */
export function gatedFieldVerdict(
  field: string,
  version: string,
): 'kept' | 'dropped' | 'refused' | 'unknown' | 'maybe-dropped' {
  const measured = GATED_FIELD_VERDICTS[version]?.verdicts[field];
  if (measured) return measured;
  const minor = Number(version.split('.')[1]);
  const neighbours = Object.keys(GATED_FIELD_VERDICTS)
    .map((v) => Number(v.split('.')[1]))
    .sort((a, b) => a - b);
  const below = neighbours.filter((m) => m < minor).pop();
  const above = neighbours.find((m) => m > minor);
  const drops = (m: number | undefined) =>
    m !== undefined && GATED_FIELD_VERDICTS[`1.${m}`].verdicts[field] === 'dropped';
  return drops(below) || drops(above) ? 'maybe-dropped' : 'kept';
}

/**
 * Walks the values of a built-in object along its vendored 1.32 schema: `visit` sees each set property with the
 * schema holding it (and each referenced schema `name` once with `key` undefined); 'stop' skips what is below.
 */
function walkBuiltin(
  object: any,
  visit: (schema: string, key: string | undefined, path: string) => 'stop' | 'descend',
  skipKind?: (name: string) => boolean,
): void {
  if (typeof object?.apiVersion !== 'string' || typeof object?.kind !== 'string') return;
  const [group, v] = object.apiVersion.includes('/') ? object.apiVersion.split('/') : ['', object.apiVersion];
  const { name, schemas } = builtinRawSchemas({ group, version: v, kind: object.kind });
  // a whole kind a version lacks is the served API versions' concern, not a field's
  if (!name || skipKind?.(name)) return;
  const refOf = (s: any): string | undefined => {
    const ref: unknown = s?.$ref ?? s?.allOf?.[0]?.$ref;
    return typeof ref === 'string' ? ref.replace('#/components/schemas/', '') : undefined;
  };
  const walk = (value: any, schema: any, path: string): void => {
    const ref = refOf(schema);
    if (ref) {
      if (path !== '' && visit(ref, undefined, path) === 'stop') return;
      schema = { ...schemas[ref], _name: ref };
    }
    if (Array.isArray(value)) {
      if (schema?.items) value.forEach((item, i) => walk(item, schema.items, `${path}[${i}]`));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    for (const [key, sub] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (schema?._name && visit(schema._name, key, at) === 'stop') continue;
      if (schema?.properties?.[key]) {
        walk(sub, schema.properties[key], at);
      } else if (schema?.additionalProperties && typeof schema.additionalProperties === 'object') {
        walk(sub, schema.additionalProperties, at);
      }
    }
  };
  walk(object, { $ref: `#/components/schemas/${name}` }, '');
}
