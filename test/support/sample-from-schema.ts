import { JSONSchemaProps } from '../../lib';
import { goRegExp } from '../../lib/apiserver/schema/go-regexp';

/** Candidate strings tried against a `pattern` (a fuzzer needs no regex inversion for the patterns CRDs use). */
const STRING_CANDIDATES = [
  'abc',
  'a-b',
  'example',
  '16.4',
  '1',
  '0 2 * * *',
  '1Gi',
  'Ready',
  'True',
  'a.b',
  'A',
  'abc123',
  '10s',
  'https://example.com',
  '192.168.0.1',
  'x',
];
const FORMATTED: Record<string, unknown> = {
  'date-time': '2026-01-02T03:04:05Z',
  date: '2026-01-02',
  byte: 'aGVsbG8=',
  int32: 1,
  int64: 1,
  uri: 'https://example.com/x',
  email: 'a@example.com',
  hostname: 'example.com',
  ipv4: '10.0.0.1',
  ipv6: '::1',
  uuid: '123e4567-e89b-12d3-a456-426614174000',
  duration: '10s',
  password: 'secret',
};

/**
 * A value for every declared field of a structural schema (deterministic), so that a round trip through
 * validation shows whether any declared field would be pruned or rejected. Fields whose constraints it
 * cannot satisfy are left out when optional.
 */
export function sampleFromSchema(schema: JSONSchemaProps, seed = 0): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[seed % schema.enum.length];
  if (schema['x-kubernetes-int-or-string']) return 1;
  switch (schema.type) {
    case 'object': {
      if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return {};
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        const v = sampleFromSchema(schema.additionalProperties, seed);
        return v === undefined ? {} : { key: v };
      }
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(schema.properties ?? {})) {
        if (name === 'metadata' || name === 'apiVersion' || name === 'kind') continue;
        const v = sampleFromSchema(prop, seed);
        if (v !== undefined) out[name] = v;
        else if (schema.required?.includes(name)) return undefined;
      }
      return out;
    }
    case 'array': {
      if (!schema.items) return [];
      const keys = schema['x-kubernetes-list-map-keys'] ?? [];
      const items = [0, 1].map((i) => sampleFromSchema(schema.items!, seed + i)).filter((v) => v !== undefined);
      const unique = schema['x-kubernetes-list-type'] === 'set' || keys.length > 0 ? items.slice(0, 1) : items;
      return unique.slice(0, schema.maxItems ?? unique.length);
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? 0;
      const v = schema.exclusiveMinimum ? min + 1 : Math.max(min, Math.min(schema.maximum ?? 1, 1));
      return schema.multipleOf ? Math.ceil(v / schema.multipleOf) * schema.multipleOf : v;
    }
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format && FORMATTED[schema.format] !== undefined) return FORMATTED[schema.format];
      const fits = (s: string) =>
        (!schema.pattern || goRegExp(schema.pattern).test(s)) &&
        s.length >= (schema.minLength ?? 0) &&
        s.length <= (schema.maxLength ?? Infinity);
      return STRING_CANDIDATES.find(fits);
    }
    default:
      return undefined;
  }
}

/** Every field path present in a value (`spec.a.b`, `spec.list[0].x`). */
export function fieldPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => fieldPaths(v, `${prefix}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => [
      `${prefix ? `${prefix}.` : ''}${k}`,
      ...fieldPaths(v, `${prefix ? `${prefix}.` : ''}${k}`),
    ]);
  }
  return [];
}
