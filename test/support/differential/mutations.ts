import { goRegExp, goRegexpError } from '../../../lib/apiserver/schema/go-regexp';
import { JSONSchemaProps } from '../../../lib/apiserver/schema/json-schema-props';
import { EDGE_CHARACTERS } from '../value-oracle';
import { Generator, VALID_FORMATTED } from './valid-instance';

/** The rule kinds a mutation aims at (each schema keyword or apiserver check the corpus exercises). */
export const RULE_KINDS = [
  'type',
  'enum',
  'pattern',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'properties',
  'required',
  'nullable',
  'format',
  'x-kubernetes-validations',
  'int-or-string',
  'preserve-unknown-fields',
  'embedded-resource',
  'list-type',
  'default',
  'int-format',
  'scale',
  'metadata',
] as const;
export type RuleKind = (typeof RULE_KINDS)[number];

/** One step into a JSON value: a property name or a list index. */
export type Step = string | number;

/** A single mutation of a valid instance: the value at `at` replaced (or removed, for `undefined`). */
export interface Mutation {
  readonly kind: RuleKind;
  readonly at: readonly Step[];
  readonly value: unknown;
  /** What it does, for reports. */
  readonly note: string;
}

interface Target {
  readonly at: readonly Step[];
  readonly schema: JSONSchemaProps;
  /** Absent when the target is a declared property the instance leaves out. */
  readonly value: unknown;
  readonly parent?: JSONSchemaProps;
}

/** Where an instance's values and its schema's declared-but-absent properties are, depth first. */
export function targetsOf(
  schema: JSONSchemaProps,
  value: unknown,
  at: readonly Step[] = [],
  parent?: JSONSchemaProps,
  out: Target[] = [],
): Target[] {
  out.push({ at, schema, value, parent });
  if (value === undefined || value === null) return out;
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) => targetsOf(schema.items!, v, [...at, i], schema, out));
  } else if (typeof value === 'object' && !Array.isArray(value)) {
    const o = value as Record<string, unknown>;
    const root = at.length === 0;
    for (const [k, prop] of Object.entries(schema.properties ?? {})) {
      if (
        (root || schema['x-kubernetes-embedded-resource']) &&
        (k === 'metadata' || k === 'apiVersion' || k === 'kind')
      ) {
        continue;
      }
      targetsOf(prop, o[k], [...at, k], schema, out);
    }
    const ap = schema.additionalProperties;
    if (ap && typeof ap === 'object') {
      for (const k of Object.keys(o)) if (!schema.properties?.[k]) targetsOf(ap, o[k], [...at, k], schema, out);
    }
  }
  return out;
}

/** Every mutation kind that applies to a target, each with its candidate values. */
export function mutationsOf(t: Target, g: Generator): Mutation[] {
  const s = t.schema;
  const out: Mutation[] = [];
  const add = (kind: RuleKind, value: unknown, note: string, at: readonly Step[] = t.at) =>
    out.push({ kind, at, value, note });
  const present = t.value !== undefined;
  const root = t.at.length === 0;
  const base = present ? t.value : g.value(s, t.at.length);
  if (s.type && !s['x-kubernetes-int-or-string'] && !root) {
    const wrong: Record<string, unknown[]> = {
      string: [12, true, { a: 1 }, ['a']],
      integer: ['1', 1.5, true],
      number: ['1.5', true, [1]],
      boolean: ['true', 1],
      object: ['x', [1], 1],
      array: [{ a: 1 }, 'x'],
    };
    if (wrong[s.type]) add('type', g.pick(wrong[s.type]), `a value of another type than ${s.type}`);
  }
  if (s.enum?.length) {
    add(
      'enum',
      typeof s.enum[0] === 'number' ? 987654 : g.pick(['zz-not-listed', String(s.enum[0]).toUpperCase() + 'X', '']),
      'a value the enum does not list',
    );
  }
  if (s.pattern && goRegexpError(s.pattern) === undefined && typeof base === 'string') {
    const re = goRegExp(s.pattern);
    for (let i = 0; i < 20; i++) {
      const c = g.pick(EDGE_CHARACTERS);
      const at = g.pick([0, Math.floor(base.length / 2), base.length]);
      const v = g.pick([
        base.slice(0, at) + c + base.slice(at),
        base.slice(0, at) + c + base.slice(at + 1),
        base + base,
        `${c}`,
      ]);
      if (!re.test(v) || i === 19) {
        add('pattern', v, 'a string the pattern refuses (or an edge character)');
        break;
      }
    }
  }
  if (typeof s.minimum === 'number') {
    add(
      'minimum',
      s.exclusiveMinimum ? s.minimum : s.minimum - g.pick([1, 0.5]) * (s.type === 'integer' ? 1 : g.pick([1, 0.5])),
      'just below the minimum',
    );
  }
  if (typeof s.maximum === 'number') {
    add('maximum', s.exclusiveMaximum ? s.maximum : s.maximum + 1, 'just above the maximum');
  }
  if (typeof s.multipleOf === 'number' && s.multipleOf > 0) {
    add('multipleOf', s.multipleOf * 3 + (s.type === 'integer' ? 1 : s.multipleOf / 2), 'not a multiple');
  }
  if (typeof s.minLength === 'number' && s.minLength > 0) {
    add('minLength', 'a'.repeat(s.minLength - 1), 'one character short');
  }
  if (typeof s.maxLength === 'number' && s.maxLength < 5000) {
    add(
      'maxLength',
      g.pick(['a'.repeat(s.maxLength + 1), 'é'.repeat(s.maxLength), '\u{1F600}'.repeat(s.maxLength + 1)]),
      'one character long, or multi-byte characters at the limit',
    );
  }
  if (s.type === 'array' && s.items) {
    const items = (n: number) => Array.from({ length: n }, () => g.value(s.items!, t.at.length + 1));
    if (typeof s.minItems === 'number' && s.minItems > 0) add('minItems', items(s.minItems - 1), 'one item short');
    if (typeof s.maxItems === 'number' && s.maxItems < 64) add('maxItems', items(s.maxItems + 1), 'one item too many');
    const listType = s['x-kubernetes-list-type'];
    if ((listType === 'set' || listType === 'map') && Array.isArray(base) && base.length > 0) {
      add('list-type', [...base, structuredClone(base[0])], `a duplicate in a ${listType} list`);
    }
  }
  if (s.type === 'object') {
    const count = base && typeof base === 'object' ? Object.keys(base).length : 0;
    const ap =
      s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
    if (typeof s.minProperties === 'number' && s.minProperties > 0 && !root) add('minProperties', {}, 'no properties');
    if (typeof s.maxProperties === 'number' && ap && s.maxProperties < 64) {
      const o: Record<string, unknown> = { ...(base as object) };
      for (let i = 0; Object.keys(o).length <= s.maxProperties && i < 100; i++) {
        o[`extra-${i}`] = g.value(ap, t.at.length + 1);
      }
      add('maxProperties', o, `more than ${s.maxProperties} properties (had ${count})`);
    }
    if (present && base && typeof base === 'object' && !Array.isArray(base)) {
      const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
      add(
        preserve ? 'preserve-unknown-fields' : 'properties',
        { ...(base as object), zzUnknownField: g.pick([1, 'x', { deep: [true] }]) },
        'a field the schema does not declare',
      );
      for (const r of s.required ?? []) {
        if (t.at.length === 0 && (r === 'metadata' || r === 'apiVersion' || r === 'kind')) continue;
        const copy: Record<string, unknown> = { ...(base as Record<string, unknown>) };
        delete copy[r];
        add('required', copy, `required ${r} left out`);
      }
      for (const [k, prop] of Object.entries(s.properties ?? {})) {
        if (prop.default !== undefined && k in (base as object)) {
          const copy: Record<string, unknown> = { ...(base as Record<string, unknown>) };
          delete copy[k];
          add('default', copy, `${k} left out (defaulted)`);
        }
      }
    }
    if (s['x-kubernetes-embedded-resource'] && base && typeof base === 'object' && !Array.isArray(base)) {
      const o = base as Record<string, unknown>;
      add(
        'embedded-resource',
        g.pick([
          { ...o, apiVersion: undefined },
          { ...o, kind: '' },
          { ...o, metadata: { name: 'Not_A_Name' } },
          { ...o, metadata: { name: 'ok', labels: { 'bad key!': 'v' } } },
          { ...o, metadata: { name: 'ok', unknownMeta: 1 } },
          { ...o, metadata: 'x' },
        ]),
        'an embedded resource without apiVersion/kind or with bad metadata',
      );
    }
  }
  if (t.at.length > 0) add('nullable', null, s.nullable ? 'null where nullable' : 'null where not nullable');
  if (s.format) {
    const bad =
      s.type === 'string'
        ? g.pick(['not-a-' + s.format, '', '2026-13-45', 'x y', '::zz', '9999999999999999999999999999'])
        : g.pick(['12', 'abc']);
    add(
      'format',
      g.pick([bad, bad, 12, ['a'], true, VALID_FORMATTED[s.format]?.[0] ?? 'x']),
      `a value the ${s.format} format refuses, or of another type`,
    );
  }
  if (s['x-kubernetes-int-or-string']) {
    add('int-or-string', g.pick([1.5, true, '', '10%', -3, { a: 1 }]), 'int-or-string edge');
  }
  if ((s.type === 'integer' || s.type === 'number') && (s.format === 'int32' || s.format === 'int64')) {
    add(
      'int-format',
      s.format === 'int32' ? g.pick([2147483648, -2147483649, 2147483647]) : g.pick([9007199254740993, 1e19, -1e19]),
      `outside the ${s.format} range`,
    );
  }
  if (s['x-kubernetes-validations']?.length) {
    // another valid-by-schema value of the node, or of one of its children: the rules' verdicts move
    const children = Object.entries(s.properties ?? {});
    if (children.length && base && typeof base === 'object' && !Array.isArray(base) && g.pick([true, false])) {
      const [k, prop] = g.pick(children);
      const copy: Record<string, unknown> = { ...(base as Record<string, unknown>) };
      if (k in copy && g.pick([true, false]) && !(s.required ?? []).includes(k)) delete copy[k];
      else copy[k] = g.value(prop, t.at.length + 1);
      add('x-kubernetes-validations', copy, `child ${k} changed under ${s['x-kubernetes-validations'].length} rule(s)`);
    } else if (!root) {
      add(
        'x-kubernetes-validations',
        g.value(s, t.at.length),
        `node regenerated under ${s['x-kubernetes-validations'].length} rule(s)`,
      );
    }
  }
  return out;
}

/** Sets (or removes, for `undefined`) the value at `at` in a copy of `root`, creating objects on the way. */
export function applyAt(root: unknown, at: readonly Step[], value: unknown): unknown {
  if (at.length === 0) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = copy;
  for (const step of at.slice(0, -1)) {
    if (node[step] === undefined || node[step] === null || typeof node[step] !== 'object') node[step] = {};
    node = node[step] as Record<string | number, unknown>;
  }
  const last = at[at.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}
