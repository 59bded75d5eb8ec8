import { CrdChange, crdChange, CrdChangeKind as K } from './crd-change';
import { JSONSchemaProps, ValidationRule } from '../apiserver/schema/json-schema-props';

/**
 * Differences between two versions of one openAPIV3Schema, walked together from the root.
 * `path` is the custom resource field path of `base`/`next` ('' for the root).
 *
 * @internal
 */
export function diffSchemas(base: JSONSchemaProps, next: JSONSchemaProps, version: string, path = ''): CrdChange[] {
  const out: CrdChange[] = [];
  const at = path === '' ? '.' : path;
  const add = (kind: K, message: string, where = at) => out.push(crdChange(kind, where, message, version));

  const baseType = typeLabel(base);
  const nextType = typeLabel(next);
  if (baseType !== nextType) {
    add(K.TYPE_CHANGED, `type ${baseType} → ${nextType}`);
    return out; // nothing below compares meaningfully once the type changed
  }
  if (!!base['x-kubernetes-embedded-resource'] !== !!next['x-kubernetes-embedded-resource']) {
    add(
      K.TYPE_CHANGED,
      `x-kubernetes-embedded-resource ${!!base['x-kubernetes-embedded-resource']} → ${!!next['x-kubernetes-embedded-resource']}`,
    );
  }

  diffBounds(base, next, add);
  diffEnum(base, next, add);
  diffRules(base['x-kubernetes-validations'] ?? [], next['x-kubernetes-validations'] ?? [], add);
  diffMergeStrategy(base, next, add);
  if (JSON.stringify(base.default) !== JSON.stringify(next.default)) {
    add(K.DEFAULT_CHANGED, `default ${show(base.default)} → ${show(next.default)}`);
  }

  // Properties, required.
  const baseProps = base.properties ?? {};
  const nextProps = next.properties ?? {};
  for (const name of Object.keys(baseProps)) {
    const child = `${path}.${name}`;
    if (!(name in nextProps)) {
      const kept = next['x-kubernetes-preserve-unknown-fields']
        ? ' (kept as an unknown field, no longer validated)'
        : ' (pruned from every request)';
      add(K.FIELD_REMOVED, `field removed${kept}`, child);
      continue;
    }
    out.push(...diffSchemas(baseProps[name], nextProps[name], version, child));
  }
  for (const name of Object.keys(nextProps)) {
    if (!(name in baseProps)) add(K.FIELD_ADDED, `new field of type ${typeLabel(nextProps[name])}`, `${path}.${name}`);
  }
  const baseRequired = new Set(base.required ?? []);
  const nextRequired = new Set(next.required ?? []);
  for (const name of nextRequired) {
    if (baseRequired.has(name)) continue;
    if (nextProps[name]?.default !== undefined) {
      add(
        K.REQUIRED_ADDED_WITH_DEFAULT,
        `now required, defaulted to ${show(nextProps[name].default)}`,
        `${path}.${name}`,
      );
    } else {
      add(
        K.REQUIRED_ADDED,
        'now required, without a default: existing manifests that omit it are rejected',
        `${path}.${name}`,
      );
    }
  }
  for (const name of baseRequired) {
    if (!nextRequired.has(name) && name in nextProps) add(K.REQUIRED_REMOVED, 'no longer required', `${path}.${name}`);
  }

  // Array items and map values.
  if (base.items && next.items) out.push(...diffSchemas(base.items, next.items, version, `${path}[*]`));
  const baseAdditional = base.additionalProperties;
  const nextAdditional = next.additionalProperties;
  if (typeof baseAdditional === 'object' && typeof nextAdditional === 'object') {
    out.push(...diffSchemas(baseAdditional, nextAdditional, version, `${path}[*]`));
  } else if (JSON.stringify(baseAdditional) !== JSON.stringify(nextAdditional)) {
    const looser = nextAdditional === undefined || nextAdditional === true;
    add(
      looser ? K.VALIDATION_LOOSENED : K.VALIDATION_TIGHTENED,
      `additionalProperties ${show(baseAdditional)} → ${show(nextAdditional)}`,
    );
  }
  if (base['x-kubernetes-preserve-unknown-fields'] && !next['x-kubernetes-preserve-unknown-fields']) {
    add(K.VALIDATION_TIGHTENED, 'x-kubernetes-preserve-unknown-fields removed: unknown fields are now pruned');
  } else if (!base['x-kubernetes-preserve-unknown-fields'] && next['x-kubernetes-preserve-unknown-fields']) {
    add(K.VALIDATION_LOOSENED, 'x-kubernetes-preserve-unknown-fields added: unknown fields are now kept');
  }

  // Combinators: compared as a whole (any change may reject values the baseline accepted).
  for (const key of ['allOf', 'anyOf', 'oneOf', 'not'] as const) {
    const b = JSON.stringify(base[key]);
    const n = JSON.stringify(next[key]);
    if (b === n) continue;
    if (next[key] === undefined) add(K.VALIDATION_LOOSENED, `${key} removed`);
    else add(K.VALIDATION_TIGHTENED, `${key} ${base[key] === undefined ? 'added' : 'changed'}: ${n}`);
  }
  return out;
}

/** `string`, `integer(int32)`, `int-or-string`, `object`, … as a comparable label. @internal */
export function typeLabel(s: JSONSchemaProps): string {
  if (s['x-kubernetes-int-or-string']) return 'int-or-string';
  return s.type ?? (s['x-kubernetes-preserve-unknown-fields'] ? 'any' : 'untyped');
}

type Add = (kind: K, message: string, where?: string) => void;

// [key, which direction tightens]: 'up' means a larger value is stricter.
const BOUNDS: readonly [keyof JSONSchemaProps & string, 'up' | 'down'][] = [
  ['minimum', 'up'],
  ['maximum', 'down'],
  ['minLength', 'up'],
  ['maxLength', 'down'],
  ['minItems', 'up'],
  ['maxItems', 'down'],
  ['minProperties', 'up'],
  ['maxProperties', 'down'],
];

function diffBounds(base: JSONSchemaProps, next: JSONSchemaProps, add: Add): void {
  for (const [key, stricter] of BOUNDS) {
    const b = base[key] as number | undefined;
    const n = next[key] as number | undefined;
    if (b === n) continue;
    const tightened = b === undefined || (n !== undefined && (stricter === 'up' ? n > b : n < b));
    add(tightened ? K.VALIDATION_TIGHTENED : K.VALIDATION_LOOSENED, `${key} ${show(b)} → ${show(n)}`);
  }
  for (const key of ['exclusiveMinimum', 'exclusiveMaximum', 'uniqueItems'] as const) {
    const b = !!base[key];
    const n = !!next[key];
    if (b !== n) add(n ? K.VALIDATION_TIGHTENED : K.VALIDATION_LOOSENED, `${key} ${b} → ${n}`);
  }
  if (!!base.nullable !== !!next.nullable) {
    add(
      next.nullable ? K.VALIDATION_LOOSENED : K.VALIDATION_TIGHTENED,
      `nullable ${!!base.nullable} → ${!!next.nullable}`,
    );
  }
  for (const key of ['pattern', 'format', 'multipleOf'] as const) {
    if (base[key] === next[key]) continue;
    add(
      next[key] === undefined ? K.VALIDATION_LOOSENED : K.VALIDATION_TIGHTENED,
      `${key} ${show(base[key])} → ${show(next[key])}`,
    );
  }
}

function diffEnum(base: JSONSchemaProps, next: JSONSchemaProps, add: Add): void {
  if (JSON.stringify(base.enum) === JSON.stringify(next.enum)) return;
  if (next.enum === undefined) return add(K.VALIDATION_LOOSENED, 'enum removed: any value allowed');
  if (base.enum === undefined) return add(K.VALIDATION_TIGHTENED, `enum added: only ${show(next.enum)}`);
  const nextValues = new Set(next.enum.map((v) => JSON.stringify(v)));
  const baseValues = new Set(base.enum.map((v) => JSON.stringify(v)));
  const removed = base.enum.filter((v) => !nextValues.has(JSON.stringify(v)));
  const added = next.enum.filter((v) => !baseValues.has(JSON.stringify(v)));
  if (removed.length > 0) add(K.VALIDATION_TIGHTENED, `enum values removed: ${show(removed)}`);
  if (added.length > 0) add(K.VALIDATION_LOOSENED, `enum values added: ${show(added)}`);
}

function diffRules(base: readonly ValidationRule[], next: readonly ValidationRule[], add: Add): void {
  const baseRules = new Map(base.map((r) => [r.rule.trim(), r]));
  const nextRules = new Map(next.map((r) => [r.rule.trim(), r]));
  for (const [rule, r] of nextRules) {
    if (!baseRules.has(rule)) {
      add(K.RULE_ADDED, `CEL rule added: ${JSON.stringify(rule)}${r.message ? ` (${JSON.stringify(r.message)})` : ''}`);
    }
  }
  for (const [rule] of baseRules) {
    if (!nextRules.has(rule)) add(K.RULE_REMOVED, `CEL rule removed: ${JSON.stringify(rule)}`);
  }
}

function diffMergeStrategy(base: JSONSchemaProps, next: JSONSchemaProps, add: Add): void {
  // Unset means the apiserver's default: atomic lists, granular maps.
  const implied: Record<string, unknown> = {
    'x-kubernetes-list-type': base.type === 'array' ? 'atomic' : undefined,
    'x-kubernetes-map-type': base.type === 'object' ? 'granular' : undefined,
  };
  for (const key of ['x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type'] as const) {
    const b = JSON.stringify(base[key] ?? implied[key]);
    const n = JSON.stringify(next[key] ?? implied[key]);
    if (b !== n) add(K.MERGE_STRATEGY_CHANGED, `${key} ${b ?? '(unset)'} → ${n ?? '(unset)'}`);
  }
}

function show(v: unknown): string {
  return v === undefined ? '(unset)' : JSON.stringify(v);
}
