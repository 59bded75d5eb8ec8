import { JSONSchemaProps } from '../../lib';
import { goRegExp } from '../../lib/apiserver/schema/go-regexp';

const STRINGS = [
  'abc',
  'a-b',
  'nightly-1',
  'db-2',
  'example',
  '16',
  '16.4',
  '17',
  '15.2.1',
  '1',
  '0 2 * * *',
  '*/5 * * * *',
  '@daily',
  '1Gi',
  '500Mi',
  '2',
  'Ready',
  'Synced',
  'True',
  'a.b',
  'A',
  'abc123',
  'x',
  'my-db-0',
  'my-db-1',
  'Hello, world',
  '',
];
const FORMATTED: Record<string, () => unknown> = {
  'date-time': () => '2026-01-02T03:04:05Z',
  date: () => '2026-01-02',
  byte: () => 'aGVsbG8=',
  int32: () => 1,
  int64: () => 1,
};

/**
 * A random value for a structural schema (optional fields present or not, enums, bounds, patterns from a
 * candidate pool, list-map keys unique). Not every value is valid (CEL rules, patterns no candidate fits):
 * callers keep the ones the schema validation accepts, with the schemas as the oracle.
 */
export function randomFromSchema(schema: JSONSchemaProps, rand: () => number, depth = 0): unknown {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  if (schema.enum?.length) return pick(schema.enum);
  if (schema['x-kubernetes-int-or-string']) return rand() < 0.5 ? 1 : '50%';
  switch (schema.type) {
    case 'object': {
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        const out: Record<string, unknown> = {};
        for (let i = 0; i < Math.floor(rand() * 3); i++) {
          out[`k${i}`] = randomFromSchema(schema.additionalProperties, rand, depth + 1);
        }
        return out;
      }
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        if (depth === 0 && (name === 'metadata' || name === 'apiVersion' || name === 'kind')) continue;
        if (!schema.required?.includes(name) && rand() < 0.4) continue;
        const v = randomFromSchema(prop, rand, depth + 1);
        if (v !== undefined) out[name] = v;
      }
      return out;
    }
    case 'array': {
      if (!schema.items) return [];
      const n = Math.min(Math.floor(rand() * 4), schema.maxItems ?? 3);
      const items = Array.from({ length: n }, () => randomFromSchema(schema.items!, rand, depth + 1)).filter(
        (v) => v !== undefined,
      );
      const keys = schema['x-kubernetes-list-map-keys'] ?? [];
      if (keys.length === 0 && schema['x-kubernetes-list-type'] !== 'set') return items;
      const seen = new Set<string>();
      return items.filter((item) => {
        const id = JSON.stringify(keys.length ? keys.map((k) => (item as Record<string, unknown>)[k]) : item);
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      });
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const max = schema.maximum ?? min + 100;
      return min + Math.floor(rand() * (max - min + 1));
    }
    case 'boolean':
      return rand() < 0.5;
    case 'string': {
      if (schema.format && FORMATTED[schema.format]) return FORMATTED[schema.format]();
      const fits = STRINGS.filter(
        (s) =>
          (!schema.pattern || goRegExp(schema.pattern).test(s)) &&
          s.length >= (schema.minLength ?? 0) &&
          s.length <= (schema.maxLength ?? Infinity),
      );
      return fits.length ? pick(fits) : undefined;
    }
    default:
      return undefined;
  }
}
