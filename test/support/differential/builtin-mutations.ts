/**
 * Single random mutations of a valid built-in object (a Deployment, a Service, a webhook configuration, …), driven by
 * the values the object holds rather than by a schema: a string becomes a name, a quantity, a port name or an IP of
 * the kinds the apiserver's validation tells apart; a number goes negative, to zero, past 16 and 32 bits or to a
 * fraction; a list loses or repeats an element; a map gains a label key of every shape; any field may go. What the
 * apiserver says of each is the oracle (builtin-run.ts); this module only proposes.
 */
import { Step } from './mutations';

/** One mutation: the value at `at` replaced, or removed when `value` is undefined. */
export interface BuiltinMutation {
  readonly at: readonly Step[];
  readonly value: unknown;
  /** What it does, for reports: `spec.replicas = -1`. */
  readonly note: string;
}

/** Strings the apiserver's checks tell apart: names, label values, quantities, ports, IPs, CIDRs, paths, enums. */
export const STRINGS: readonly string[] = [
  '',
  ' ',
  'a',
  'A',
  'Ab',
  '-a',
  'a-',
  'a_b',
  'a.b',
  'a..b',
  '.a',
  'a/b',
  'a b',
  'a:b',
  '*',
  '0',
  '1',
  '-1',
  '65536',
  'abc123',
  'a'.repeat(15),
  'a'.repeat(16),
  'a'.repeat(63),
  'a'.repeat(64),
  'a'.repeat(253),
  'a'.repeat(254),
  `${'a'.repeat(63)}.${'b'.repeat(63)}`,
  'example.com/a',
  'example.com/A',
  'kubernetes.io/a',
  '/a',
  'a/',
  '/',
  '1Gi',
  '1.5',
  '-1Gi',
  '1e3',
  '100m',
  '0.001m',
  '1Gb',
  'http',
  'HTTP',
  'TCP',
  'tcp',
  'UDP',
  'SCTP',
  'Always',
  'always',
  'None',
  'Ignore',
  'Fail',
  '10.0.0.1',
  '10.0.0.256',
  '::1',
  '010.0.0.1',
  '10.0.0.0/8',
  '10.0.0.1/8',
  'localhost',
  'https://example.com',
  'example.com:443',
  '$(VAR)',
  '@',
  'ÿ',
];

export const NUMBERS: readonly unknown[] = [-1, 0, 1, 2, 65535, 65536, 2147483647, 2147483648, 1.5, -0.5, 1e20, '1'];

/** Keys of label, annotation and selector maps, each shape a check tells apart. */
export const MAP_KEYS: readonly string[] = [
  'a',
  'A',
  '-a',
  'a_b',
  'a.b',
  'a/b',
  'example.com/a',
  'Example.com/a',
  'example.com/',
  '/a',
  'a/b/c',
  'a'.repeat(63),
  'a'.repeat(64),
  `${'a'.repeat(254)}/a`,
  'kubernetes.io/a',
  'a b',
];

/** Fields the harness owns: which API and kind the object is, and where it is created. */
export function ownedByHarness(at: readonly Step[]): boolean {
  return (
    (at.length === 1 && (at[0] === 'apiVersion' || at[0] === 'kind')) ||
    (at.length === 2 && at[0] === 'metadata' && at[1] === 'namespace')
  );
}

/** Every place in `value` a mutation may aim at (itself excluded), depth first. */
function placesOf(value: unknown, at: readonly Step[] = []): { at: readonly Step[]; value: unknown }[] {
  const out: { at: readonly Step[]; value: unknown }[] = [];
  const visit = (v: unknown, p: readonly Step[]): void => {
    if (p.length && !ownedByHarness(p)) out.push({ at: p, value: v });
    if (Array.isArray(v)) v.forEach((x, i) => visit(x, [...p, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, [...p, k]);
  };
  visit(value, at);
  return out;
}

export const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

/** A value `key` of a string map may hold (labels, annotations, selectors). */
function isStringMap(value: unknown): value is Record<string, string> {
  return (
    !!value &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string')
  );
}

/** One mutation of the value at a place, chosen by the value's type. */
function mutationAt(rand: () => number, value: unknown): { value: unknown; what: string } {
  if (rand() < 0.12) return { value: undefined, what: 'removed' };
  if (typeof value === 'string') return { value: pick(rand, STRINGS), what: '' };
  if (typeof value === 'number') return { value: pick(rand, NUMBERS), what: '' };
  if (typeof value === 'boolean') return { value: pick(rand, ['true', null, 0] as unknown[]), what: '' };
  if (Array.isArray(value)) {
    const r = rand();
    if (r < 0.3 || value.length === 0) return { value: [], what: 'emptied' };
    if (r < 0.6) return { value: [...value, structuredClone(value[0])], what: 'first element repeated' };
    if (r < 0.8) return { value: value.slice(1), what: 'first element removed' };
    return { value: [...value, typeof value[0] === 'string' ? pick(rand, STRINGS) : {}], what: 'element added' };
  }
  if (value && typeof value === 'object') {
    const keys = Object.keys(value);
    if (isStringMap(value) && rand() < 0.7) {
      const key = pick(rand, MAP_KEYS);
      return { value: { ...value, [key]: rand() < 0.5 ? 'v' : pick(rand, STRINGS) }, what: `key ${key} added` };
    }
    if (keys.length && rand() < 0.6) {
      const key = pick(rand, keys);
      const { [key]: _gone, ...rest } = value as Record<string, unknown>;
      return { value: rest, what: `${key} removed` };
    }
    return { value: {}, what: 'emptied' };
  }
  return { value: pick(rand, STRINGS), what: '' };
}

/** `at` as the apiserver writes a field path: `spec.ports[0].port`. */
export function fieldPath(at: readonly Step[]): string {
  return at.map((s, i) => (typeof s === 'number' ? `[${s}]` : i ? `.${s}` : s)).join('');
}

/** `count` random single mutations of `object` (not changed), each at a place picked at random (a place may recur). */
export function builtinMutationsOf(object: unknown, rand: () => number, count: number): BuiltinMutation[] {
  const places = placesOf(object);
  const out: BuiltinMutation[] = [];
  for (let i = 0; i < count && places.length; i++) {
    const place = pick(rand, places);
    const m = mutationAt(rand, place.value);
    const shown = m.what || (m.value === undefined ? 'removed' : `= ${JSON.stringify(m.value)?.slice(0, 60)}`);
    out.push({ at: place.at, value: m.value, note: `${fieldPath(place.at)} ${shown}` });
  }
  return out;
}

/**
 * Every place of `object` removed, and every string emptied and every number made -1 and 0: the mutations a user's
 * omission or placeholder makes, where defaulting and validation meet (an empty enum the apiserver defaults).
 */
export function builtinSweepOf(object: unknown): BuiltinMutation[] {
  return placesOf(object).flatMap(({ at, value }) => {
    const shown = fieldPath(at);
    const out: BuiltinMutation[] = [{ at, value: undefined, note: `${shown} removed` }];
    if (typeof value === 'string' && value !== '') out.push({ at, value: '', note: `${shown} = ""` });
    if (typeof value === 'number') {
      for (const n of [-1, 0]) if (value !== n) out.push({ at, value: n, note: `${shown} = ${n}` });
    }
    return out;
  });
}

/** A copy of `object` with `m` applied. */
export function applyBuiltinMutation(object: unknown, m: BuiltinMutation): any {
  const copy = structuredClone(object) as any;
  let parent = copy;
  for (const step of m.at.slice(0, -1)) parent = parent[step];
  const last = m.at[m.at.length - 1];
  if (m.value === undefined) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    parent[last] = structuredClone(m.value);
  }
  return copy;
}
