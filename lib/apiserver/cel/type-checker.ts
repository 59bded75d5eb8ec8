import { AstExpr, location, parseRule } from './ast';
import { rewriteOptionalSyntax } from './optional-syntax';
import {
  BOOL, CelType, DURATION, DYN, INT, isAssignable, joinTypes, listOf, MAX_REQUEST_SIZE_BYTES, mapOf, optionalOf, STRING, TIMESTAMP, typeName,
} from './cel-types';
import { FUNCTION_DECLS, FunctionDecl, TYPE_IDENTIFIERS, UNSUPPORTED_FUNCTIONS } from './declarations';
import { isTwoVariableCall } from './macros';

// the declaration types callers need to type `self`: `checkExpression(rule, { self: schemaCelType(schema) })`
export { CelType, schemaCelType } from './cel-types';

/** What type-checking one expression found. */
export interface CheckedExpression {
  /** The expression's result type (dyn when unknown). */
  readonly type: CelType;
  /** cel-go style errors, e.g. `ERROR: <input>:1:13: undefined field 'replicaz'`. */
  readonly errors: readonly string[];
  /** Functions the apiserver has but the local library does not (the rule is only partly checked). */
  readonly unsupported: readonly string[];
  /** Estimated worst-case cost in cel-go cost units, for one evaluation (see `estimateCost` notes below). */
  readonly cost: number;
  /** Whether the expression reads `oldSelf`. */
  readonly usesOldSelf: boolean;
}

/**
 * Parses and type-checks a CEL expression against variable declarations, and estimates its cost.
 *
 * Cost model (a simplification of cel-go's `checker.CostEstimator` with the Kubernetes sizes):
 * - reading a variable or field costs 1; a call costs 1 plus its arguments; list literals 10, maps 30;
 * - string scans (contains, split, lowerAscii…), string/list equality and string concatenation add
 *   0.1 per byte or element of the operands; regex functions (matches, find, findAll) multiply that
 *   by 0.25 per pattern character; `x in list` adds the list size;
 * - a comprehension (all, exists, exists_one, map, filter) costs its range plus
 *   `maxSize(range) × (condition + step)`, so nested iterations multiply.
 * Sizes come from maxItems / maxProperties / maxLength (×4 bytes per character), or, when missing,
 * from the 3 MiB request limit divided by the smallest serialized element: the apiserver's bounds.
 * `checkCelRules` then multiplies by how often the rule runs (enclosing lists and maps).
 */
export function checkExpression(source: string, variables: Readonly<Record<string, CelType>>): CheckedExpression {
  let ast;
  const rewritten = rewriteOptionalSyntax(source);
  try {
    ast = parseRule(rewritten);
  } catch (e) {
    const text = (e as Error).message.replace(/^<input>:/, '');
    return { type: DYN, errors: [`ERROR: <input>:${text}`], unsupported: [], cost: 0, usesOldSelf: /\boldSelf\b/.test(source) };
  }
  const checker = new TypeChecker(rewritten, ast.positions, variables);
  const { t, c } = checker.visit(ast.root, new Map());
  return { type: t, errors: checker.errors, unsupported: [...checker.unsupported], cost: c, usesOldSelf: checker.usesOldSelf };
}

interface Typed { readonly t: CelType; readonly c: number }

type Scope = ReadonlyMap<string, CelType>;

const UNBOUNDED = MAX_REQUEST_SIZE_BYTES;
const REGEX_FUNCTIONS = new Set(['matches', 'find', 'findAll']);
const NUMERIC = new Set(['int', 'uint', 'double']);

class TypeChecker {
  public readonly errors: string[] = [];
  public readonly unsupported = new Set<string>();
  public usesOldSelf = false;

  constructor(
    private readonly source: string,
    private readonly positions: Record<string, number>,
    private readonly variables: Readonly<Record<string, CelType>>,
  ) {}

  public visit(e: AstExpr, scope: Scope): Typed {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const t = constType(k.value.constantKind.case);
        const text = k.value.constantKind.value;
        return { t: typeof text === 'string' ? { ...t, maxSize: text.length } : t, c: 0 };
      }
      case 'identExpr': return { t: this.ident(e, k.value.name, scope), c: 1 };
      case 'selectExpr': return this.select(e, k.value.operand!, k.value.field, k.value.testOnly, scope);
      case 'callExpr': return this.call(e, k.value.function, k.value.target, k.value.args, scope);
      case 'listExpr': {
        const items = k.value.elements.map(x => this.visit(x, scope));
        const elem = items.reduce<CelType | undefined>((acc, x) => (acc ? joinTypes(acc, x.t) : x.t), undefined) ?? DYN;
        return { t: { kind: 'list', elem, maxSize: items.length }, c: 10 + sum(items.map(x => x.c)) };
      }
      case 'structExpr': {
        const values = k.value.entries.map(en => (en.value ? this.visit(en.value, scope) : { t: DYN, c: 0 }));
        const keys = k.value.entries.map(en => (en.keyKind.case === 'mapKey' ? this.visit(en.keyKind.value as AstExpr, scope) : { t: STRING, c: 0 }));
        if (k.value.messageName) this.error(e, `undeclared reference to '${k.value.messageName}' (in container '')`);
        const key = keys.reduce<CelType | undefined>((a, x) => (a ? joinTypes(a, x.t) : x.t), undefined) ?? DYN;
        const value = values.reduce<CelType | undefined>((a, x) => (a ? joinTypes(a, x.t) : x.t), undefined) ?? DYN;
        return { t: mapOf(key, value, values.length), c: 30 + sum(values.map(x => x.c)) + sum(keys.map(x => x.c)) };
      }
      case 'comprehensionExpr': return this.comprehension(e, k.value, scope);
      default: return { t: DYN, c: 0 };
    }
  }

  private ident(e: AstExpr, name: string, scope: Scope): CelType {
    if (scope.has(name)) return scope.get(name)!;
    if (name === 'oldSelf') this.usesOldSelf = true;
    if (name in this.variables) return this.variables[name];
    if (name in TYPE_IDENTIFIERS) return { kind: 'type', of: TYPE_IDENTIFIERS[name] };
    if (name === 'oldSelf') {
      this.error(e, "undeclared reference to 'oldSelf' (in container ''): oldSelf cannot be used on the uncorrelatable portion of the schema");
    } else {
      this.error(e, `undeclared reference to '${name}' (in container '')`);
    }
    return DYN;
  }

  private select(e: AstExpr, operand: AstExpr, field: string, testOnly: boolean, scope: Scope): Typed {
    const qualified = qualifiedName(operand);
    if (qualified && !this.isDeclared(qualified.split('.')[0], scope) && `${qualified}.${field}` in TYPE_IDENTIFIERS) {
      return { t: { kind: 'type', of: TYPE_IDENTIFIERS[`${qualified}.${field}`] }, c: 0 };
    }
    const o = this.visit(operand, scope);
    let t: CelType = DYN;
    switch (o.t.kind) {
      case 'object':
        if (field in o.t.fields) t = o.t.fields[field];
        else this.error(e, `undefined field '${field}'`);
        break;
      case 'map':
        if (!isAssignable(o.t.key, STRING)) this.error(e, `type '${typeName(o.t)}' does not support field selection`);
        t = o.t.value;
        break;
      case 'dyn': break;
      default: this.error(e, `type '${typeName(o.t)}' does not support field selection`);
    }
    return { t: testOnly ? BOOL : t, c: o.c + 1 };
  }

  private isDeclared(name: string, scope: Scope): boolean {
    return scope.has(name) || name in this.variables;
  }

  private comprehension(e: AstExpr, v: Extract<AstExpr['exprKind'], { case: 'comprehensionExpr' }>['value'], scope: Scope): Typed {
    if (v.iterVar2) this.unsupported.add('two-variable comprehensions');
    const range = this.visit(v.iterRange!, scope);
    let iter: CelType = DYN;
    let size = UNBOUNDED;
    switch (range.t.kind) {
      case 'list': iter = range.t.elem; size = range.t.maxSize ?? UNBOUNDED; break;
      case 'map': iter = range.t.key; size = range.t.maxSize ?? UNBOUNDED; break;
      case 'dyn': size = range.t.maxSize ?? UNBOUNDED; break;
      default:
        this.error(e, `expression of type '${typeName(range.t)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
    }
    const init = this.visit(v.accuInit!, scope);
    let accu = init.t;
    const inner = (a: CelType): Map<string, CelType> => new Map([...scope, [v.iterVar, iter], [v.accuVar, a]]);
    const errorsBefore = this.errors.length;
    let step = this.visit(v.loopStep!, inner(accu));
    // map()/filter() start from an empty list: the element type comes from the step
    if (accu.kind === 'list' && accu.maxSize === 0 && step.t.kind === 'list') {
      this.errors.length = errorsBefore;
      accu = { ...step.t, maxSize: size };
      step = this.visit(v.loopStep!, inner(accu));
    } else if (accu.kind === 'list' && accu.maxSize === 0) {
      accu = { kind: 'list', elem: DYN, maxSize: size };
    }
    const cond = this.visit(v.loopCondition!, inner(accu));
    const result = this.visit(v.result!, inner(accu));
    return { t: result.t, c: range.c + init.c + size * (cond.c + step.c) + result.c };
  }

  private call(e: AstExpr, name: string, target: AstExpr | undefined, args: readonly AstExpr[], scope: Scope): Typed {
    // namespaced global functions (`strings.quote(x)`, `sets.contains(a, b)`) parse as method calls
    const ns = target ? qualifiedName(target) : undefined;
    if (ns && !this.isDeclared(ns.split('.')[0], scope)) {
      return this.call(e, `${ns}.${name}`, undefined, args, scope);
    }
    if (target && isTwoVariableCall(name, target, args)) return this.twoVariable(e, name, target, args, scope);
    const tgt = target ? this.visit(target, scope) : undefined;
    const as = args.map(a => this.visit(a, scope));
    const base = (tgt?.c ?? 0) + sum(as.map(a => a.c)) + 1;
    const types = as.map(a => a.t);
    if (tgt && (name === '__optSelect__' || name === '__optIndex__') && args.length === 1) {
      return { t: this.optionalAccess(e, name, tgt.t, args[0], types[0]), c: base };
    }
    if (tgt?.t.kind === 'opaque' && tgt.t.name === 'Optional' && tgt.t.of && args.length <= 1) {
      if (name === 'value' && args.length === 0) return { t: tgt.t.of, c: base };
      if (name === 'orValue' && args.length === 1) return { t: joinTypes(tgt.t.of, types[0]), c: base };
    }
    const operator = this.operator(e, name, types);
    if (operator) return { t: operator.t, c: base + operator.c };
    if (name === 'size' && (tgt ? types.length === 0 : types.length === 1)) {
      const of = tgt ? tgt.t : types[0];
      if (!['string', 'bytes', 'list', 'map', 'dyn'].includes(of.kind)) this.noOverload(e, name, tgt?.t, types);
      return { t: INT, c: base };
    }
    if (name === 'type' && !tgt && types.length === 1) return { t: { kind: 'type', of: types[0] }, c: base };

    const candidates = FUNCTION_DECLS.filter(d => d.name === name && (d.target !== undefined) === (tgt !== undefined));
    if (candidates.length === 0) {
      if (UNSUPPORTED_FUNCTIONS.has(name) || (tgt?.t.kind === 'dyn' && isKnownName(name))) {
        if (UNSUPPORTED_FUNCTIONS.has(name)) this.unsupported.add(name);
        return { t: DYN, c: base };
      }
      if (isKnownName(name)) this.noOverload(e, name, tgt?.t, types);
      else this.error(e, `undeclared reference to '${name}' (in container '')`);
      return { t: DYN, c: base };
    }
    for (const d of candidates) {
      const result = matchOverload(d, tgt?.t, types);
      if (result) {
        if (!d.scalesWithSize) return { t: result, c: base };
        // strings and lists derived from a scanned string (split, findAll, lowerAscii…) are at most as long as it
        const inputSize = sizeOf(tgt?.t ?? types[0]);
        const sized = ['string', 'list'].includes(result.kind) && result.maxSize === undefined ? { ...result, maxSize: inputSize } : result;
        // regex functions: cel-go multiplies the scan by 0.25 per character of the pattern
        const pattern = REGEX_FUNCTIONS.has(d.name) ? types[tgt ? 0 : 1] : undefined;
        const regexFactor = pattern ? Math.max(1, Math.ceil(0.25 * sizeOf(pattern))) : 1;
        return { t: sized, c: base + Math.ceil(0.1 * inputSize) * regexFactor };
      }
    }
    if (UNSUPPORTED_FUNCTIONS.has(name)) {
      this.unsupported.add(name);
      return { t: DYN, c: base };
    }
    this.noOverload(e, name, tgt?.t, types);
    return { t: DYN, c: base };
  }

  /**
   * Two-variable comprehensions (`m.all(k, v, pred)`, `l.transformList(i, v, [filter,] expr)`…):
   * `k` is the index of a list or the key of a map, `v` the element or value.
   */
  private twoVariable(e: AstExpr, name: string, target: AstExpr, args: readonly AstExpr[], scope: Scope): Typed {
    const range = this.visit(target, scope);
    let k: CelType = DYN;
    let v: CelType = DYN;
    if (range.t.kind === 'list') [k, v] = [INT, range.t.elem];
    else if (range.t.kind === 'map') [k, v] = [range.t.key, range.t.value];
    else if (range.t.kind !== 'dyn') {
      this.error(e, `expression of type '${typeName(range.t)}' cannot be range of a comprehension (must be list, map, or dynamic)`);
    }
    const name0 = (args[0].exprKind as { value: { name: string } }).value.name;
    const name1 = (args[1].exprKind as { value: { name: string } }).value.name;
    const inner = new Map([...scope, [name0, k], [name1, v]]);
    const parts = args.slice(2).map(a => this.visit(a, inner));
    const size = sizeOf(range.t);
    const c = range.c + size * sum(parts.map(p => p.c));
    const last = parts[parts.length - 1].t;
    if (parts.length === 2 && !['bool', 'dyn'].includes(parts[0].t.kind)) this.noOverload(e, name, range.t, parts.map(p => p.t));
    switch (name) {
      case 'transformList': return { t: listOf(last, size), c };
      case 'transformMap': return { t: mapOf(k, last, size), c };
      case 'transformMapEntry':
        if (last.kind === 'map') return { t: mapOf(last.key, last.value, size), c };
        if (last.kind !== 'dyn') this.noOverload(e, name, range.t, parts.map(p => p.t));
        return { t: mapOf(DYN, DYN, size), c };
      default:
        if (!['bool', 'dyn'].includes(last.kind)) this.noOverload(e, name, range.t, parts.map(p => p.t));
        return { t: BOOL, c };
    }
  }

  /** `x.?f` / `x[?k]` (rewritten to `__optSelect__` / `__optIndex__`): an optional of the field, entry or element. */
  private optionalAccess(e: AstExpr, name: string, on: CelType, arg: AstExpr, argType: CelType): CelType {
    const inner = on.kind === 'opaque' && on.name === 'Optional' ? on.of ?? DYN : on;
    if (name === '__optIndex__') {
      if (inner.kind === 'dyn') return optionalOf(DYN);
      return optionalOf(this.index(e, inner, argType));
    }
    const field = arg.exprKind.case === 'constExpr' ? String(arg.exprKind.value.constantKind.value) : '';
    switch (inner.kind) {
      case 'object':
        if (!(field in inner.fields)) this.error(e, `undefined field '${field}'`);
        return optionalOf(inner.fields[field] ?? DYN);
      case 'map': return optionalOf(inner.value);
      case 'dyn': return optionalOf(DYN);
    }
    this.error(e, `type '${typeName(inner)}' does not support field selection`);
    return optionalOf(DYN);
  }

  /** Operators and macros-helpers, typed like cel-go's standard declarations. */
  private operator(e: AstExpr, name: string, a: CelType[]): Typed | undefined {
    const bool = (ok: boolean, extra = 0): Typed => {
      if (!ok) this.noOverload(e, name, undefined, a);
      return { t: BOOL, c: extra };
    };
    switch (name) {
      case '_&&_': case '_||_':
        return bool(a.every(x => x.kind === 'bool' || x.kind === 'dyn'));
      case '!_': case '@not_strictly_false': case '__not_strictly_false__':
        return bool(a[0].kind === 'bool' || a[0].kind === 'dyn');
      case '_==_': case '_!=_':
        return bool(comparable(a[0], a[1]), Math.ceil(0.1 * Math.min(sizeOf(a[0]), sizeOf(a[1]))));
      case '_<_': case '_<=_': case '_>_': case '_>=_':
        return bool(ordered(a[0], a[1]));
      case '@in':
        if (a[1].kind === 'list') return bool(comparable(a[0], a[1].elem), sizeOf(a[1]));
        if (a[1].kind === 'map') return bool(comparable(a[0], a[1].key));
        return bool(a[1].kind === 'dyn', sizeOf(a[1]));
      case '_?_:_':
        if (a[0].kind !== 'bool' && a[0].kind !== 'dyn') this.noOverload(e, name, undefined, a);
        return { t: joinTypes(a[1], a[2]), c: 0 };
      case '_[_]': return { t: this.index(e, a[0], a[1]), c: 0 };
      case '-_':
        if (!['int', 'double', 'dyn'].includes(a[0].kind)) this.noOverload(e, name, undefined, a);
        return { t: a[0], c: 0 };
      case '_+_': case '_-_': case '_*_': case '_/_': case '_%_':
        return this.arithmetic(e, name, a[0], a[1]);
    }
    return undefined;
  }

  private index(e: AstExpr, on: CelType, key: CelType): CelType {
    switch (on.kind) {
      case 'list':
        if (!['int', 'uint', 'dyn'].includes(key.kind)) this.noOverload(e, '_[_]', undefined, [on, key]);
        return on.elem;
      case 'map':
        if (!isAssignable(on.key, key)) this.noOverload(e, '_[_]', undefined, [on, key]);
        return on.value;
      case 'object':
        if (key.kind !== 'string' && key.kind !== 'dyn') this.noOverload(e, '_[_]', undefined, [on, key]);
        return DYN;
      case 'dyn': return DYN;
    }
    this.noOverload(e, '_[_]', undefined, [on, key]);
    return DYN;
  }

  private arithmetic(e: AstExpr, name: string, l: CelType, r: CelType): Typed {
    if (l.kind === 'dyn' || r.kind === 'dyn') return { t: l.kind === 'dyn' ? (r.kind === 'dyn' ? DYN : r) : l, c: 0 };
    const same = l.kind === r.kind;
    if (same && NUMERIC.has(l.kind) && !(name === '_%_' && l.kind === 'double')) return { t: l, c: 0 };
    if (name === '_+_') {
      if (same && (l.kind === 'string' || l.kind === 'bytes')) {
        return { t: { kind: l.kind, maxSize: sizeOf(l) + sizeOf(r) }, c: Math.ceil(0.1 * (sizeOf(l) + sizeOf(r))) };
      }
      if (l.kind === 'list' && r.kind === 'list') {
        return { t: listOf(joinTypes(l.elem, r.elem), sizeOf(l) + sizeOf(r)), c: 1 };
      }
      if ((l.kind === 'timestamp' && r.kind === 'duration') || (l.kind === 'duration' && r.kind === 'timestamp')) return { t: TIMESTAMP, c: 0 };
      if (same && l.kind === 'duration') return { t: DURATION, c: 0 };
    }
    if (name === '_-_') {
      if (same && l.kind === 'timestamp') return { t: DURATION, c: 0 };
      if (l.kind === 'timestamp' && r.kind === 'duration') return { t: TIMESTAMP, c: 0 };
      if (same && l.kind === 'duration') return { t: DURATION, c: 0 };
    }
    this.noOverload(e, name, undefined, [l, r]);
    return { t: DYN, c: 0 };
  }

  private noOverload(e: AstExpr, name: string, target: CelType | undefined, args: CelType[]): void {
    const shown = `${target ? `${typeName(target)}.` : ''}(${args.map(typeName).join(', ')})`;
    this.error(e, `found no matching overload for '${name}' applied to '${shown}'`);
  }

  private error(e: AstExpr, message: string): void {
    this.errors.push(`ERROR: <input>:${location(this.source, this.positions[e.id.toString()])}: ${message}`);
  }
}

function constType(kind: string | undefined): CelType {
  switch (kind) {
    case 'boolValue': return BOOL;
    case 'int64Value': return INT;
    case 'uint64Value': return { kind: 'uint' };
    case 'doubleValue': return { kind: 'double' };
    case 'stringValue': return STRING;
    case 'bytesValue': return { kind: 'bytes' };
    case 'nullValue': return { kind: 'null' };
    default: return DYN;
  }
}

function comparable(a: CelType, b: CelType): boolean {
  if (a.kind === 'null' || b.kind === 'null') return true;
  if (NUMERIC.has(a.kind) && NUMERIC.has(b.kind)) return true; // heterogeneous numeric equality
  if (a.kind === 'type' || b.kind === 'type') return a.kind === b.kind || a.kind === 'dyn' || b.kind === 'dyn';
  return isAssignable(a, b) || isAssignable(b, a);
}

function ordered(a: CelType, b: CelType): boolean {
  if (a.kind === 'dyn' || b.kind === 'dyn') return true;
  if (NUMERIC.has(a.kind) && NUMERIC.has(b.kind)) return true; // cross-type numeric comparisons are enabled
  return a.kind === b.kind && ['string', 'bytes', 'bool', 'timestamp', 'duration'].includes(a.kind);
}

function matchOverload(d: FunctionDecl, target: CelType | undefined, args: CelType[]): CelType | undefined {
  if (d.args.length !== args.length) return undefined;
  let elem: CelType = DYN;
  if (d.target === 'list') {
    if (target?.kind === 'list') elem = target.elem;
    else if (target?.kind !== 'dyn') return undefined;
  } else if (d.target && target && !isAssignable(d.target, target)) {
    return undefined;
  }
  for (let i = 0; i < args.length; i++) {
    const p = d.args[i] === 'T' ? elem : d.args[i] as CelType;
    if (!isAssignable(p, args[i])) return undefined;
  }
  if (d.target === 'list' && (d.name === 'sum' || d.name === 'min' || d.name === 'max' || d.name === 'isSorted')) {
    const ok = ['int', 'uint', 'double', 'dyn', ...(d.name === 'sum' ? ['duration'] : ['string', 'bytes', 'bool', 'timestamp', 'duration'])];
    if (!ok.includes(elem.kind)) return undefined;
  }
  return d.result === 'T' ? elem : d.result;
}

/** The `a.b.c` text of a chain of identifiers and selections, if the expression is one. */
function qualifiedName(e: AstExpr): string | undefined {
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly && e.exprKind.value.operand) {
    const inner = qualifiedName(e.exprKind.value.operand);
    return inner ? `${inner}.${e.exprKind.value.field}` : undefined;
  }
  return undefined;
}

function isKnownName(name: string): boolean {
  return FUNCTION_DECLS.some(d => d.name === name);
}

function sizeOf(t: CelType | undefined): number {
  if (!t) return 1;
  if (t.kind === 'string' || t.kind === 'bytes' || t.kind === 'list' || t.kind === 'map' || t.kind === 'dyn') return t.maxSize ?? UNBOUNDED;
  return 1;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
