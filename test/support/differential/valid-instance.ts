import RandExp from 'randexp';
import { goRegExp, goRegexpError } from '../../../lib/apiserver/schema/go-regexp';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';

/** A value the format accepts, per format the apiserver checks (others are free text). */
export const VALID_FORMATTED: Readonly<Record<string, readonly string[]>> = {
  'date-time': ['2026-01-02T03:04:05Z', '2026-11-25T06:30:00.123+01:00'],
  date: ['2026-01-02'],
  byte: ['aGVsbG8='],
  uri: ['https://example.com/x'],
  email: ['a@example.com'],
  hostname: ['example.com'],
  ipv4: ['10.0.0.1'],
  ipv6: ['::1'],
  cidr: ['10.0.0.0/8'],
  mac: ['01:23:45:67:89:ab'],
  uuid: ['123e4567-e89b-12d3-a456-426614174000'],
  uuid3: ['a987fbc9-4bed-3078-cf07-9141ba07c9f3'],
  uuid4: ['57b73598-8764-4ad0-a76a-679bb6640eb1'],
  uuid5: ['987fbc97-4bed-5078-af07-9141ba07c9f3'],
  duration: ['10s', '1h30m'],
  isbn: ['0321751043'],
  isbn10: ['0321751043'],
  isbn13: ['978-0321751041'],
  creditcard: ['4111111111111111'],
  ssn: ['123-45-6789'],
  hexcolor: ['#ff0000'],
  rgbcolor: ['rgb(0,0,0)'],
  password: ['secret'],
};

const WORDS = [
  'abc',
  'a-b',
  'example',
  'my-db-0',
  'x',
  'Ready',
  'True',
  'a.b',
  '1Gi',
  '16.4',
  'abc123',
  'nightly-1',
  '0 2 * * *',
];

/** Options: how deep optional fields still appear, and how likely. */
export interface InstanceOptions {
  /** Probability an optional field is present at depth 0 (halved every 3 levels). */
  readonly optional: number;
}

/**
 * A random value meant to be valid for a structural schema: required fields always, optional ones with a
 * probability falling with depth, enums, formats, patterns (drawn with randexp and kept when Go's regexp
 * agrees), bounds, lengths, item and property counts, set and map-list uniqueness, embedded resources.
 * CEL rules are not solved: the apiserver's verdict decides, this only aims at valid.
 */
export function validInstance(
  schema: JSONSchemaProps,
  rand: () => number,
  options: InstanceOptions = { optional: 0.6 },
): unknown {
  return new Generator(rand, options).value(schema, 0, true);
}

export class Generator {
  constructor(
    private readonly rand: () => number,
    private readonly options: InstanceOptions,
  ) {}

  public pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.rand() * xs.length)];
  }

  public int(min: number, max: number): number {
    return min + Math.floor(this.rand() * (max - min + 1));
  }

  public value(s: JSONSchemaProps, depth: number, root = false): unknown {
    if (s.enum?.length) {
      return this.pick(s.enum.filter((e) => e !== null).length ? s.enum.filter((e) => e !== null) : s.enum);
    }
    if (s['x-kubernetes-int-or-string']) {
      if (s.pattern || this.rand() < 0.5) return this.string(s);
      return this.int(0, 10);
    }
    switch (s.type) {
      case 'object':
        return this.object(s, depth, root);
      case 'array':
        return this.array(s, depth);
      case 'integer':
        return this.number(s, true);
      case 'number':
        return this.number(s, false);
      case 'boolean':
        return this.rand() < 0.5;
      case 'string':
        return this.string(s);
      default:
        // no type: only preserve-unknown-fields nodes (and int-or-string) have none
        return s['x-kubernetes-preserve-unknown-fields'] ? this.pick([{ a: 1 }, 'free', 3, [1, 'x']]) : undefined;
    }
  }

  private optionalChance(depth: number): number {
    return this.options.optional / 2 ** Math.floor(depth / 3);
  }

  private object(s: JSONSchemaProps, depth: number, root: boolean): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (s['x-kubernetes-embedded-resource']) {
      out.apiVersion = 'v1';
      out.kind = 'ConfigMap';
      out.metadata = { name: `embedded-${this.int(0, 9)}` };
    }
    const required = new Set(s.required ?? []);
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      if (root && (name === 'metadata' || name === 'apiVersion' || name === 'kind')) continue;
      if (s['x-kubernetes-embedded-resource'] && (name === 'metadata' || name === 'apiVersion' || name === 'kind')) {
        continue;
      }
      if (!required.has(name) && (depth > 14 || this.rand() >= this.optionalChance(depth))) continue;
      const v = this.value(prop, depth + 1);
      if (v !== undefined) out[name] = v;
    }
    // at least minProperties: more of the declared ones
    for (const [name, prop] of Object.entries(s.properties ?? {})) {
      if (Object.keys(out).length >= (s.minProperties ?? 0)) break;
      if (
        name in out ||
        (s['x-kubernetes-embedded-resource'] && (name === 'metadata' || name === 'apiVersion' || name === 'kind'))
      ) {
        continue;
      }
      const v = this.value(prop, depth + 1);
      if (v !== undefined) out[name] = v;
    }
    const ap = s.additionalProperties;
    if (ap && typeof ap === 'object') {
      const n = Math.max(s.minProperties ?? 0, depth > 10 ? 0 : this.int(0, 2));
      for (let i = 0; i < n && (s.maxProperties === undefined || Object.keys(out).length < s.maxProperties); i++) {
        const v = this.value(ap, depth + 1);
        if (v !== undefined) out[`key-${i}`] = v;
      }
    } else if (s['x-kubernetes-preserve-unknown-fields'] && !s.properties && this.rand() < 0.5) {
      out.free = { nested: [1, 'two', { three: true }] };
    }
    return out;
  }

  private array(s: JSONSchemaProps, depth: number): unknown[] {
    if (!s.items) return [];
    const min = s.minItems ?? 0;
    const max = Math.min(s.maxItems ?? min + 2, min + 2, depth > 10 ? min : Infinity);
    const n = this.int(min, Math.max(min, max));
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const set = s['x-kubernetes-list-type'] === 'set' || s.uniqueItems === true;
    const out: unknown[] = [];
    const seen = new Set<string>();
    for (let attempt = 0; out.length < n && attempt < n * 6; attempt++) {
      const item = this.value(s.items, depth + 1);
      if (item === undefined) continue;
      if (keys.length || set) {
        const id = JSON.stringify(
          keys.length
            ? keys.map((k) => (item as Record<string, unknown>)?.[k] ?? s.items?.properties?.[k]?.default)
            : item,
        );
        if (seen.has(id)) continue;
        seen.add(id);
      }
      out.push(item);
    }
    return out;
  }

  private number(s: JSONSchemaProps, integer: boolean): number {
    const step = s.multipleOf && s.multipleOf > 0 ? s.multipleOf : integer ? 1 : 0.5;
    let lo = s.minimum ?? (s.maximum !== undefined ? s.maximum - 20 : 0);
    let hi = s.maximum ?? lo + 20;
    if (s.exclusiveMinimum && s.minimum !== undefined) lo += step;
    if (s.exclusiveMaximum && s.maximum !== undefined) hi -= step;
    const first = Math.ceil(lo / step);
    const last = Math.floor(hi / step);
    const k = last >= first ? this.int(first, Math.min(last, first + 40)) : first;
    const v = k * step;
    return integer ? Math.round(v) : v;
  }

  public string(s: JSONSchemaProps): string {
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Infinity;
    const fits = (v: string) =>
      [...v].length >= min &&
      [...v].length <= max &&
      (!s.pattern || goRegexpError(s.pattern) !== undefined || goRegExp(s.pattern).test(v));
    const candidates: string[] = [];
    if (s.format && VALID_FORMATTED[s.format]) candidates.push(...VALID_FORMATTED[s.format]);
    if (s.pattern && goRegexpError(s.pattern) === undefined) {
      candidates.push(...this.drawn(s.pattern, Math.min(max, 40)));
    }
    if (!(s.format && VALID_FORMATTED[s.format])) candidates.push(...WORDS);
    const good = candidates.filter(fits);
    if (good.length) return this.pick(good);
    if (!s.pattern && !s.format) return 'a'.repeat(Math.max(min, 1));
    return candidates[0] ?? 'a';
  }

  private drawn(pattern: string, maxLength: number): string[] {
    try {
      const gen = new RandExp(
        pattern
          .replace(/\(\?[imsU]+\)/g, '')
          .replace(/\(\?[imsU]+:/g, '(?:')
          .replace(/\\[Az]/g, '')
          .replace(/\\p\{[A-Za-z]+\}|\\pL/g, 'a'),
      );
      gen.max = Math.max(1, Math.min(6, maxLength));
      gen.randInt = (a: number, b: number) => this.int(a, b);
      return Array.from({ length: 12 }, () => gen.gen());
    } catch {
      return [];
    }
  }
}
