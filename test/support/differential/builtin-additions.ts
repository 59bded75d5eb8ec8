/**
 * Fields a valid built-in object leaves unset, added: the value-driven mutations (builtin-mutations.ts) only reach the
 * fields some seed sets, and most of a kind's fields no seed sets. Here the object is walked along its kind's schema
 * as the version serves it (decoding-schemas.ts), a property the object lacks is picked, and it gets either a value of
 * its schema's type (a name, a quantity, a port, an enum spelling, a small object with its required fields, a list of
 * one, a map of one key) or, half the time where one exists, a value the same property has in another seed (a
 * security context, an affinity, a probe: valid values in a new place, where the rules between fields meet). What the
 * apiserver says of each is the oracle (builtin-run.ts); this module only proposes.
 */
import { BuiltinMutation, fieldPath, MAP_KEYS, NUMBERS, ownedByHarness, pick, STRINGS } from './builtin-mutations';
import { Step } from './mutations';
import { RawSchema, refOf, VersionSchemas } from '../../../lib/apiserver/builtin-validation/decoding-schemas';

const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const TIMES = ['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime'];

const QUANTITIES: readonly string[] = ['0', '1', '100m', '1Gi', '1.5', '-1', '1e3', '0.001m'];
const PERCENTS: readonly string[] = ['25%', '0%', '100%', '150%', '-1%', '1.5%'];
const TIMESTAMPS: readonly string[] = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000001Z'];

/** Generated objects hold at most this many levels: deeper ones are `{}` (their required fields left to the oracle). */
const MAX_DEPTH = 3;

/** Values each property has in the seeds, by `Schema.property`, to graft into other seeds. */
export type Donors = ReadonlyMap<string, readonly unknown[]>;

/** A property the object's schema has at `holder` and the object does not set. */
interface OpenPlace {
  readonly at: readonly Step[];
  /** `io.k8s.api.core.v1.PodSpec.securityContext`: the donors' key. */
  readonly key: string;
  readonly schema: RawSchema;
}

/** Every value the `objects` set, by the schema property holding it (as {@link builtinAdditionsOf} grafts them). */
export function donorsOf(objects: readonly any[], schemas: VersionSchemas): Donors {
  const donors = new Map<string, unknown[]>();
  for (const object of objects) {
    walk(object, schemas, (node, name) => {
      for (const [key, value] of Object.entries(node)) {
        const property = schemas.property(name, key);
        if (!property.known) continue;
        const at = `${name}.${key}`;
        const list = donors.get(at) ?? donors.set(at, []).get(at)!;
        if (list.length < 20) list.push(value);
      }
    });
  }
  return donors;
}

/** `count` random additions to `object` (not changed) of fields its kind's schema on this version has and it lacks. */
export function builtinAdditionsOf(
  object: any,
  schemas: VersionSchemas,
  donors: Donors,
  rand: () => number,
  count: number,
): BuiltinMutation[] {
  const places: OpenPlace[] = [];
  walk(object, schemas, (node, name, at) => {
    const properties = schemas.schema(name)?.properties ?? {};
    for (const key of Object.keys(properties)) {
      if (key in node || ownedByHarness([...at, key])) continue;
      const property = schemas.property(name, key);
      if (property.known) places.push({ at: [...at, key], key: `${name}.${key}`, schema: property.schema });
    }
  });
  const out: BuiltinMutation[] = [];
  for (let i = 0; i < count && places.length; i++) {
    const place = pick(rand, places);
    const given = donors.get(place.key);
    const grafted = given?.length && rand() < 0.5;
    const value = grafted ? structuredClone(pick(rand, given)) : valueOf(place.schema, schemas, rand, 1);
    const shown = grafted ? 'grafted from a seed' : `= ${JSON.stringify(value)?.slice(0, 60)}`;
    out.push({ at: place.at, value, note: `${fieldPath(place.at)} added, ${shown}` });
  }
  return out;
}

/** Calls `visit` with every struct in `object` (the object itself first): its value, schema name and place. */
function walk(
  object: any,
  schemas: VersionSchemas,
  visit: (node: Record<string, unknown>, name: string, at: readonly Step[]) => void,
): void {
  const root = typeof object?.apiVersion === 'string' ? schemas.kindSchema(object.apiVersion, object.kind) : undefined;
  if (!root) return;
  const struct = (node: Record<string, unknown>, name: string, at: readonly Step[]): void => {
    visit(node, name, at);
    for (const [key, value] of Object.entries(node)) {
      const property = schemas.property(name, key);
      if (property.known) inner(value, property.schema, [...at, key]);
    }
  };
  const inner = (value: unknown, schema: RawSchema, at: readonly Step[]): void => {
    const ref = refOf(schema);
    if (ref) {
      const named = schemas.schema(ref);
      if (named?.properties && isObject(value)) struct(value, ref, at);
      else if (named && !named.properties) inner(value, named, at);
      return;
    }
    if (schema.type === 'array' && schema.items && Array.isArray(value)) {
      value.forEach((item, i) => inner(item, schema.items!, [...at, i]));
    } else if (schema.type === 'object' && typeof schema.additionalProperties === 'object' && isObject(value)) {
      for (const [key, item] of Object.entries(value)) inner(item, schema.additionalProperties, [...at, key]);
    }
  };
  if (isObject(object)) struct(object, root, []);
}

/** A value of `schema`'s type, objects `depth` levels down at most {@link MAX_DEPTH}. */
function valueOf(schema: RawSchema, schemas: VersionSchemas, rand: () => number, depth: number): unknown {
  const ref = refOf(schema);
  if (ref === QUANTITY) return pick(rand, QUANTITIES);
  if (ref === INT_OR_STRING) return pick(rand, [pick(rand, NUMBERS), pick(rand, PERCENTS), pick(rand, STRINGS)]);
  if (ref && TIMES.includes(ref)) return pick(rand, TIMESTAMPS);
  if (ref) {
    const named = schemas.schema(ref);
    if (!named) return {};
    if (!named.properties) return valueOf(named, schemas, rand, depth);
    if (depth >= MAX_DEPTH) return {};
    const required = Array.isArray(named.required) ? (named.required as string[]) : [];
    const optional = Object.keys(named.properties).filter((k) => !required.includes(k));
    const keys = [...required, ...[0, 1].map(() => pick(rand, optional)).filter((k) => k !== undefined)];
    const out: Record<string, unknown> = {};
    for (const key of keys) out[key] = valueOf(named.properties[key], schemas, rand, depth + 1);
    return out;
  }
  switch (schema.type) {
    case 'array':
      return schema.items ? [valueOf(schema.items, schemas, rand, depth)] : [];
    case 'object':
      return typeof schema.additionalProperties === 'object'
        ? { [rand() < 0.5 ? 'a' : pick(rand, MAP_KEYS)]: valueOf(schema.additionalProperties, schemas, rand, depth) }
        : {};
    case 'string':
      return Array.isArray(schema.enum) && rand() < 0.6 ? pick(rand, schema.enum as string[]) : pick(rand, STRINGS);
    case 'integer':
      return pick(
        rand,
        NUMBERS.filter((n) => Number.isInteger(n)),
      );
    case 'number':
      return pick(rand, [0, 0.5, 1, -1]);
    case 'boolean':
      return rand() < 0.5;
    default:
      return pick(rand, STRINGS);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
