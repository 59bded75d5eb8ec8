import { checkEmbeddedResource } from './embedded-resource';
import { checkValueType, numericFormatError } from './type-check';
import { applyDefaults } from './value-defaults';
import { evaluateRules } from './value-rules';
import { tooLongMaxLength, tooMany } from '../../apimachinery/field-error-details';
import { fieldValue, goFloat, goQuote, goJson, isInt64 } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { deepEqual } from '../../apimachinery/json';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { checkFormat } from '../schema/formats';
import { goRegExp, goRegexpError } from '../schema/go-regexp';
import { JSONSchemaProps } from '../schema/json-schema-props';

/** Options of `validateValue`. */
export interface ValidateValueOptions {
  /**
   * The previous version of the value: transition rules (those reading `oldSelf`) run only when it
   * is given, exactly as the apiserver runs them only on update.
   * @default - no old value: a create
   */
  readonly oldValue?: unknown;
  /**
   * Field path of the value, prefixed to every issue path.
   * @default '' (the value is a whole resource; root issues use the path '<root>')
   */
  readonly path?: string;
  /**
   * Whether the value is a whole resource, so `apiVersion`, `kind` and `metadata` are allowed at its root.
   * @default true
   */
  readonly resourceRoot?: boolean;
  /**
   * Apply schema defaults before validating, as the apiserver does.
   * @default true
   */
  readonly applyDefaults?: boolean;
  /**
   * Evaluate `x-kubernetes-validations` rules.
   * @default true
   */
  readonly evaluateRules?: boolean;
  /**
   * The Kubernetes version whose apiserver to imitate where versions differ (formats, type checks, messages).
   * @default '1.32'
   */
  readonly kubernetesVersion?: KubernetesVersion;
  /**
   * Whether checks made before the schema's (ObjectMeta's) already found an error that blocks CEL rules
   * (a required, unsupported, too long or too many value).
   * @default false
   */
  readonly blockingErrorsBefore?: boolean;
  /**
   * The value is a CRD's `default`: the apiserver checks an int-or-string node of a default by its `type`, and its
   * type not at all without one (measured on 1.32: `{type: boolean, x-kubernetes-int-or-string: true, default: false}`
   * is accepted, `default: "x"` refused as not boolean), where a resource's value must be an integer or a string.
   * @default false
   */
  readonly isDefault?: boolean;
}

/** What `validateValue` found, and the value it validated (with defaults applied). */
export interface ValueValidation {
  readonly issues: Issue[];
  /** The value after defaulting: what the apiserver would store. */
  readonly value: unknown;
}

/**
 * Validates a value against a CRD version's `openAPIV3Schema` with the apiserver's semantics:
 * defaults applied first, then type, enum, format, pattern, bounds, required, list-type set/map
 * uniqueness, int-or-string, nullable, embedded resources, then every CEL rule on the defaulted
 * value. Unknown fields, which the apiserver would silently prune, are reported as errors.
 *
 * Messages follow the apiserver's causes, e.g.
 * `spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1`.
 */
export function validateValue(
  schema: JSONSchemaProps,
  value: unknown,
  options: ValidateValueOptions = {},
): ValueValidation {
  const doDefault = options.applyDefaults ?? true;
  const resourceRoot = options.resourceRoot ?? true;
  const defaulted = doDefault ? applyDefaults(schema, value) : value;
  const oldDefaulted =
    options.oldValue !== undefined && doDefault ? applyDefaults(schema, options.oldValue) : options.oldValue;
  const walk = (withRules: boolean): Issue[] => {
    const issues: Issue[] = [];
    new ValueWalker(
      issues,
      withRules,
      options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION,
      options.isDefault ?? false,
    ).check(defaulted, schema, options.path ?? '', {
      root: resourceRoot,
      embedded: resourceRoot || schema['x-kubernetes-embedded-resource'] === true,
      old: oldDefaulted,
      valueOnly: false,
    });
    return issues;
  };
  const schemaIssues = walk(false);
  if (!(options.evaluateRules ?? true) || !hasRules(schema)) return { issues: schemaIssues, value: defaulted };
  // like the apiserver, CEL rules are not run on an object with blocking schema errors
  if (options.blockingErrorsBefore || schemaIssues.some(isBlocking)) {
    return {
      issues: [
        ...schemaIssues,
        {
          path: options.path || '<root>',
          severity: 'warning',
          // field.Invalid(nil, nil, …): a fieldless cause whose value is nil
          message: `Invalid value: ${fieldValue(null, options.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION)}: ${RULES_SKIPPED}`,
        },
      ],
      value: defaulted,
    };
  }
  return { issues: walk(true), value: defaulted };
}

/** The apiserver's note when it skips CEL rules because of blocking schema errors (the detail of a fieldless cause). */
export const RULES_SKIPPED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/** Errors after which the apiserver skips CEL rules: wrong type, required, unsupported value, too long, too many. */
const blockingIssues = new WeakSet<Issue>();

function isBlocking(i: Issue): boolean {
  return blockingIssues.has(i);
}

/** Whether a schema has CEL rules anywhere (the apiserver has no CEL validator, hence no note, otherwise). */
const hasRulesCache = new WeakMap<JSONSchemaProps, boolean>();
function hasRules(s: JSONSchemaProps): boolean {
  let known = hasRulesCache.get(s);
  if (known === undefined) {
    const children = [
      ...Object.values(s.properties ?? {}),
      ...(s.items ? [s.items] : []),
      ...(s.allOf ?? []),
      ...(s.additionalProperties && typeof s.additionalProperties === 'object' ? [s.additionalProperties] : []),
    ];
    known = (s['x-kubernetes-validations']?.length ?? 0) > 0 || children.some(hasRules);
    hasRulesCache.set(s, known);
  }
  return known;
}

interface NodeContext {
  /** The resource root: apiVersion, kind, metadata are ObjectMeta-validated elsewhere. */
  readonly root: boolean;
  /** An embedded resource (or the root): apiVersion, kind and metadata are always allowed. */
  readonly embedded: boolean;
  /** The correlated old value, for transition rules. */
  readonly old: unknown;
  /** Inside allOf/anyOf/oneOf/not: only value keywords apply (no unknown fields, no rules). */
  readonly valueOnly: boolean;
}

const ROOT_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

/** Why an unknown field is an error of ours: with strict field validation the apiserver refuses it, else drops it. */
const DROPPED = 'the apiserver would drop it';

class ValueWalker {
  /** Nodes checked without an issue in them (kube-openapi's MatchCount, roughly: it picks a failed branch by it). */
  public matches = 0;

  constructor(
    private readonly issues: Issue[],
    private readonly withRules: boolean,
    private readonly version: KubernetesVersion,
    private readonly isDefault: boolean,
  ) {}

  /** Validates one node; returns false when its type is wrong (its rules and children are then skipped). */
  public check(v: unknown, s: JSONSchemaProps, path: string, ctx: NodeContext): boolean {
    const before = this.issues.length;
    const ok = this.checkNode(v, s, path, ctx);
    if (this.issues.length === before) this.matches++;
    return ok;
  }

  private checkNode(v: unknown, s: JSONSchemaProps, path: string, ctx: NodeContext): boolean {
    const at = path || '<root>';
    if (v === null) {
      if (s.nullable === true) {
        // kube-openapi still checks enum on null: a nullable enum must list null to accept it
        if (s.enum?.length && !s.enum.includes(null)) {
          this.add(at, this.unsupported(null, s.enum), null, this.enumBlocks());
        }
        return true;
      }
      if (s.type || isIntOrString(s)) {
        this.add(at, `Invalid value: "null": ${at} in body must be of type ${expectedType(s)}: "null"`, null, true);
      }
      // kube-openapi runs the type and the common (enum) validators on null
      this.checkEnum(null, s, at);
      return !s.type;
    }
    const typed = this.checkType(v, s, at);
    if (typed === false) {
      this.strictUnknownFields(v, s, path, ctx);
      // kube-openapi's schema validator runs every validator that applies to the value's kind after a failed type
      // check too: the branches, enum (any kind), the numeric checks on a number, the string checks on a string
      this.checkBranches(v, s, path, ctx);
      this.checkEnum(v, s, at);
      if (typeof v === 'number') this.checkNumber(v, s, at);
      if (typeof v === 'string') this.checkString(v, s, at, false);
      return false;
    }
    this.checkEnum(v, s, at);
    // a string or list of another type passed kube-openapi's type check only by its format: a string still gets
    // the string checks (the format's included), a list nothing else
    if (typed === 'quirk') {
      if (typeof v === 'string') this.checkString(v, s, at);
      return true;
    }
    if (typeof v === 'number') this.checkNumber(v, s, at);
    if (typeof v === 'string') this.checkString(v, s, at);
    if (Array.isArray(v)) this.checkArray(v, s, path, ctx);
    else if (typeof v === 'object') this.checkObject(v as Record<string, unknown>, s, path, ctx);
    this.checkBranches(v, s, path, ctx);
    if (this.withRules && !ctx.valueOnly && s['x-kubernetes-validations']) {
      this.issues.push(...evaluateRules(s, v, ctx.old, at, this.version));
    }
    return true;
  }

  private checkType(v: unknown, s: JSONSchemaProps, at: string): boolean | 'quirk' {
    if (this.isDefault && isIntOrString(s) && !s.type) return true;
    if ((isIntOrString(s) && !this.isDefault) || !s.type) {
      const actual = jsonType(v);
      const ok = isIntOrString(s) ? actual === 'integer' || actual === 'string' : true;
      if (!ok) {
        this.add(
          at,
          `Invalid value: "${actual}": ${at} in body must be of type ${expectedType(s)}: "${actual}"`,
          v,
          true,
        );
      }
      return ok;
    }
    const verdict = checkValueType(v, s, at, this.version);
    const range = numericFormatError(v, s, at, this.version);
    if (verdict.error) this.add(at, verdict.error.message, verdict.error.value, true);
    if (range) this.add('<nil>', range, '');
    return verdict.error ? false : verdict.quirk ? 'quirk' : true;
  }

  /**
   * Strict field validation walks the schema's properties whatever the value's type: every field of an object
   * given where the schema wants a string, list or number is unknown (and reported alone, before validation).
   */
  private strictUnknownFields(v: unknown, s: JSONSchemaProps, path: string, ctx: NodeContext): void {
    if (ctx.valueOnly || !isPlainObject(v) || s['x-kubernetes-preserve-unknown-fields'] === true) return;
    for (const [k, child] of Object.entries(v)) {
      if (child !== undefined) this.add(join(path, k), `unknown field "${join(path, k)}"`, child, false, DROPPED);
    }
  }

  /** Enum (kube-openapi's common validator, for a value of any kind). */
  private checkEnum(v: unknown, s: JSONSchemaProps, at: string): void {
    if (s.enum?.length && !s.enum.some((e) => deepEqual(e, v))) {
      this.add(at, this.unsupported(v, s.enum), v, this.enumBlocks());
    }
  }

  /** field.NotSupported: the supported values quoted, strings as they are and the others as JSON (apiextensions). */
  private unsupported(v: unknown, values: readonly unknown[]): string {
    return `Unsupported value: ${fieldValue(v, this.version)}: supported values: ${values.map((e) => goQuote(typeof e === 'string' ? e : goJson(e))).join(', ')}`;
  }

  /**
   * kube-openapi's numeric checks: an int64 (a JSON integer that fits) against the bound truncated to an int64 and
   * printed as one; a float64 against the bound as a float64, printed with Go's %v (`4.294967295e+09`). From 1.36 a
   * bound out of the field's numeric format (`minimum: 1.5` on an integer) is an error of its own, and the value is
   * then compared (and shown) as a float64.
   */
  private checkNumber(v: number, s: JSONSchemaProps, at: string): void {
    const check = (
      bound: number,
      prefix: string,
      fails: (x: number, b: number) => boolean,
      detail: (b: string) => string,
    ) => {
      const outOfRange = numericFormatError(bound, s, at, this.version, prefix);
      if (outOfRange) this.add('<nil>', outOfRange, '');
      const native = isInt64(v) && !outOfRange;
      const b = native ? Math.trunc(bound) : bound;
      if (fails(v, b)) {
        this.add(
          at,
          `Invalid value: ${native ? String(v) : goFloat(v)}: ${at} in body should ${detail(native ? String(b) : goFloat(b))}`,
          v,
        );
      }
    };
    if (s.multipleOf !== undefined && s.multipleOf > 0) {
      check(
        s.multipleOf,
        'MultipleOf',
        (x, b) => b !== 0 && Math.abs(x / b - Math.round(x / b)) > 1e-9,
        (b) => `be a multiple of ${b}`,
      );
    }
    if (s.maximum !== undefined) {
      check(
        s.maximum,
        'Maximum boundary',
        (x, b) => (s.exclusiveMaximum ? x >= b : x > b),
        (b) => `be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${b}`,
      );
    }
    if (s.minimum !== undefined) {
      check(
        s.minimum,
        'Minimum boundary',
        (x, b) => (s.exclusiveMinimum ? x <= b : x < b),
        (b) => `be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${b}`,
      );
    }
  }

  /**
   * kube-openapi's string validator reports the first of maxLength, minLength and pattern that fails (lengths in
   * runes); its format validator runs apart (only where the type check passed).
   */
  private checkString(v: string, s: JSONSchemaProps, at: string, withFormat = true): void {
    const length = [...v].length;
    if (s.maxLength !== undefined && length > s.maxLength) {
      this.add(at, tooLongMaxLength(s.maxLength, this.version), v, true);
    } else if (s.minLength !== undefined && length < s.minLength) {
      this.invalid(at, v, `${at} in body should be at least ${s.minLength} chars long`);
    }
    // a pattern that does not compile is the CRD's error (reported there); kube-openapi then checks nothing
    else if (s.pattern !== undefined && goRegexpError(s.pattern) === undefined && !goRegExp(s.pattern).test(v)) {
      this.invalid(at, v, `${at} in body should match '${s.pattern}'`);
    }
    // kube-openapi reports a format as a type (InvalidTypeCode): it blocks CEL rules like a wrong type
    if (withFormat && s.format && !checkFormat(s.format, v, this.version)) {
      this.add(
        at,
        `Invalid value: ${fieldValue(v, this.version)}: ${at} in body must be of type ${s.format}: ${goQuote(v)}`,
        v,
        true,
      );
    }
  }

  private checkArray(v: unknown[], s: JSONSchemaProps, path: string, ctx: NodeContext): void {
    const at = path || '<root>';
    if (s.maxItems !== undefined && v.length > s.maxItems) {
      this.add(at, tooMany(v.length, s.maxItems, this.version), v.length, true);
    }
    // kube-openapi's TooFewItems carries the list's size as the value
    if (s.minItems !== undefined && v.length < s.minItems) {
      this.invalid(at, v.length, `${at} in body should have at least ${s.minItems} items`);
    }
    if (!ctx.valueOnly) this.checkListType(v, s, path);
    if (!s.items) return;
    const listType = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'] ?? [];
    const oldList = Array.isArray(ctx.old) ? ctx.old : undefined;
    v.forEach((item, i) => {
      // only map-list items correlate with their old version (by key); other list items never do
      const old =
        listType === 'map' && oldList
          ? oldList.find((o) => keys.every((k) => deepEqual(field(o, k), field(item, k))))
          : undefined;
      this.check(item, s.items!, `${path}[${i}]`, {
        root: false,
        embedded: s.items!['x-kubernetes-embedded-resource'] === true,
        old,
        valueOnly: ctx.valueOnly,
      });
    });
  }

  /** `x-kubernetes-list-type: set` items are unique; `map` items are objects, unique by their map keys. */
  private checkListType(v: unknown[], s: JSONSchemaProps, path: string): void {
    const listType = s['x-kubernetes-list-type'];
    // like apiextensions' listtype validation, each repeated value is reported once, at its second occurrence
    const secondOccurrence = (ids: unknown[], i: number) =>
      ids.filter((o, j) => j < i && deepEqual(o, ids[i])).length === 1;
    if (listType === 'set') {
      v.forEach((item, i) => {
        if (secondOccurrence(v, i)) {
          this.add(`${path}[${i}]`, `Duplicate value: ${fieldValue(item, this.version)}`, item);
        }
      });
    } else if (listType === 'map') {
      // validateListMap: the first item that is neither an object nor null is the only error
      const notObject = v.findIndex((item) => item !== null && !isPlainObject(item));
      if (notObject >= 0) {
        this.invalid(`${path}[${notObject}]`, v[notObject], 'must be an object for an array of list-type map');
        return;
      }
      const keys = s['x-kubernetes-list-map-keys'] ?? [];
      const keyOf = (item: unknown) =>
        Object.fromEntries(keys.map((k) => [k, field(item, k) ?? s.items?.properties?.[k]?.default]));
      const ids = v.map(keyOf);
      v.forEach((_item, i) => {
        if (v[i] !== null && secondOccurrence(ids, i)) {
          this.add(`${path}[${i}]`, `Duplicate value: ${fieldValue(ids[i], this.version)}`, ids[i]);
        }
      });
    }
  }

  private checkObject(v: Record<string, unknown>, s: JSONSchemaProps, path: string, ctx: NodeContext): void {
    const at = path || '<root>';
    const count = Object.keys(v).length;
    if (s.maxProperties !== undefined && count > s.maxProperties) {
      this.add(at, tooMany(count, s.maxProperties, this.version), count, true);
    }
    if (s.minProperties !== undefined && count < s.minProperties) {
      this.invalid(at, count, `${at} in body should have at least ${s.minProperties} properties`);
    }
    for (const r of s.required ?? []) {
      if (v[r] === undefined && !(ctx.root && (r === 'apiVersion' || r === 'kind' || r === 'metadata'))) {
        this.add(childPath(path, r), 'Required value', undefined, true);
      }
    }
    if (ctx.embedded && !ctx.root && !ctx.valueOnly) {
      // a required apiVersion or kind blocks CEL rules like any required value
      for (const i of checkEmbeddedResource(v, path, this.version)) {
        this.add(i.path, i.message, i.value, i.message.startsWith('Required value'), i.hint);
      }
    }
    const ap = s.additionalProperties;
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true || ap === true;
    const old = isPlainObject(ctx.old) ? ctx.old : undefined;
    for (const [k, child] of Object.entries(v)) {
      if (child === undefined) continue; // absent, as in JSON
      // a declared property is a child of the path whatever its name (`spec.jvmOptions.-Xmx`, measured); a map key
      // that is no identifier is bracketed
      const p = s.properties?.[k] ? childPath(path, k) : join(path, k);
      if (ctx.embedded && ROOT_KEYS.has(k) && !s.properties?.[k]) continue;
      if (ctx.root && k === 'metadata') {
        this.checkRootMetadata(child, s.properties?.metadata, p);
        continue;
      }
      const prop = s.properties?.[k] ?? (ap && typeof ap === 'object' ? ap : undefined);
      if (prop) {
        const embedded = prop['x-kubernetes-embedded-resource'] === true;
        this.check(child, prop, p, { root: false, embedded, old: old?.[k], valueOnly: ctx.valueOnly });
      } else if (!preserve && !ctx.valueOnly && (s.properties || s.type === 'object')) {
        this.add(p, `unknown field "${p}"`, child, false, DROPPED);
      }
    }
  }

  /** Only `metadata.name` and `metadata.generateName` may be constrained by a CRD schema. */
  private checkRootMetadata(meta: unknown, s: JSONSchemaProps | undefined, path: string): void {
    if (!isPlainObject(meta)) {
      if (meta !== undefined) {
        this.add(
          path,
          `Invalid value: "${jsonType(meta)}": ${path} in body must be of type object: "${jsonType(meta)}"`,
          meta,
        );
      }
      return;
    }
    for (const k of ['name', 'generateName']) {
      const sub = s?.properties?.[k];
      if (sub && meta[k] !== undefined) {
        this.check(meta[k], sub, join(path, k), { root: false, embedded: false, old: undefined, valueOnly: true });
      }
    }
  }

  private checkBranches(v: unknown, s: JSONSchemaProps, path: string, ctx: NodeContext): void {
    const at = path || '<root>';
    const run = (b: JSONSchemaProps): { issues: Issue[]; matches: number } => {
      const sink: Issue[] = [];
      const walker = new ValueWalker(sink, false, this.version, this.isDefault);
      walker.check(v, b, path, { ...ctx, valueOnly: true });
      return { issues: sink, matches: walker.matches };
    };
    for (const b of s.allOf ?? []) {
      new ValueWalker(this.issues, false, this.version, this.isDefault).check(v, b, path, { ...ctx, valueOnly: true });
    }
    // kube-openapi reports these as composite errors, which apiextensions turns into fieldless causes (`<nil>`)
    // naming the path in the message; when no branch is valid, it adds the errors of the branch that matched most
    // (the first of equals)
    const composite = (detail: string) => this.add('<nil>', `Invalid value: "": ${JSON.stringify(at)} ${detail}`, v);
    const best = (results: { issues: Issue[]; matches: number }[]) =>
      results.reduce((a, b) => (b.matches > a.matches ? b : a));
    if (s.anyOf) {
      const results = s.anyOf.map(run);
      if (!results.some((r) => r.issues.length === 0)) {
        composite('must validate at least one schema (anyOf)');
        this.issues.push(...best(results).issues);
      }
    }
    if (s.oneOf) {
      const results = s.oneOf.map(run);
      const n = results.filter((r) => r.issues.length === 0).length;
      if (n !== 1) {
        composite(
          `must validate one and only one schema (oneOf). ${n === 0 ? 'Found none valid' : `Found ${n} valid alternatives`}`,
        );
      }
      if (n === 0) this.issues.push(...best(results).issues);
    }
    if (s.not && run(s.not).issues.length === 0) composite('must not validate the schema (not)');
  }

  private enumBlocks(): boolean {
    return since(this.version, 'enumErrorsBlockRules');
  }

  private invalid(path: string, value: unknown, detail: string): void {
    this.add(path, `Invalid value: ${fieldValue(value, this.version)}: ${detail}`, value);
  }

  private add(path: string, message: string, value: unknown, blocking = false, hint?: string): void {
    const issue: Issue = hint ? { path, message, value, hint } : { path, message, value };
    if (blocking) blockingIssues.add(issue);
    this.issues.push(issue);
  }
}

/** field.Path's Child: `spec` + `-Xmx` → `spec.-Xmx`. */
function childPath(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** `spec` + `x` → `spec.x`; keys that are not identifiers use brackets: `spec.labels[app.kubernetes.io/name]`. */
function join(path: string, key: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$-]*$/.test(key)) return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

function isIntOrString(s: JSONSchemaProps): boolean {
  return s['x-kubernetes-int-or-string'] === true;
}

function expectedType(s: JSONSchemaProps): string {
  return isIntOrString(s) ? 'integer,string' : String(s.type);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function field(o: unknown, k: string): unknown {
  return isPlainObject(o) ? o[k] : undefined;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
