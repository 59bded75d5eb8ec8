import { AstExpr, location, parseRule } from './ast';
import {
  BOOL,
  CelType,
  DURATION,
  DYN,
  INT,
  isAssignable,
  joinTypes,
  listOf,
  mapOf,
  opaque,
  optionalOf,
  STRING,
  TIMESTAMP,
  typeName,
  CEL_RESERVED,
} from './cel-types';
import { FUNCTION_DECLS, FunctionDecl, NOT_OFFERED, TYPE_IDENTIFIERS, UNSUPPORTED_FUNCTIONS } from './declarations';
import { CelEnvironment, celEnvironment, CelLibrary } from './environment';
import { isTwoVariableCall } from './macros';
import { OPTIONAL_FIELD_PREFIX, rewriteOptionalSyntaxMapped } from './optional-syntax';
import { overloadIds } from './overload-ids';
import { FORMAT_CLAUSE_KINDS, validateFormatStatically } from './string-format';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { goRegexpError } from '../schema/go-regexp';

// the declaration types callers need to type `self`: `checkExpression(rule, { self: schemaCelType(schema) })`
export { type CelType, schemaCelType } from './cel-types';

/** What type-checking one expression found. */
export interface CheckedExpression {
  /** The expression's result type (dyn when unknown). */
  readonly type: CelType;
  /** cel-go style errors, e.g. `ERROR: <input>:1:13: undefined field 'replicaz'`. */
  readonly errors: readonly string[];
  /** Functions the apiserver has but the local library does not (the rule is only partly checked). */
  readonly unsupported: readonly string[];
  /** Whether the expression reads `oldSelf`. */
  readonly usesOldSelf: boolean;
  /** Libraries of `CEL_LIBRARIES` the expression uses and the version's environment lacks (each makes an error). */
  readonly missing?: readonly CelLibrary[];
  /**
   * Where the version lacks cel-go's literal validators: Go's error for the first bad `duration()`, `timestamp()` or
   * `matches()` literal, which fails building the program after a clean compile (`program instantiation failed: …`).
   */
  readonly literalError?: string;
  /** The checked AST (types and overloads of every node), for the cost estimate; absent when parsing failed. */
  readonly ast?: CheckedAst;
}

/** A parsed expression with the type of every node and the overload ids of every call, as cel-go's checked AST. */
export interface CheckedAst {
  readonly root: AstExpr;
  readonly types: ReadonlyMap<bigint, CelType>;
  readonly overloads: ReadonlyMap<bigint, readonly string[]>;
  /** Namespaced global functions (`strings.quote(x)`), which parse as a call on a target `strings`: their full name. */
  readonly globalNames: ReadonlyMap<bigint, string>;
}

/**
 * Parses and type-checks a CEL expression against variable declarations. The result carries the
 * checked AST, from which `estimateCost` computes the apiserver's static cost estimate.
 */
export function checkExpression(
  source: string,
  variables: Readonly<Record<string, CelType>>,
  options: CheckOptions = {},
): CheckedExpression {
  const env = celEnvironment(options.version);
  const { text: rewritten, toSource } = rewriteOptionalSyntaxMapped(source);
  const ast = parsed(rewritten);
  if ('error' in ast) {
    return {
      type: DYN,
      errors: [`ERROR: <input>:${ast.error}`],
      unsupported: [],
      usesOldSelf: /\boldSelf\b/.test(source),
    };
  }
  // literals cel-go's parser refuses (integers out of range; surrogate escapes on newer cel-go): the only errors reported
  const literalErrors = [
    ...ast.literalErrors,
    ...ast.badCodePoints.flatMap((b) => {
      if (b.literal === 'bytes') return [{ at: b.at, message: 'unable to unescape string' }];
      if (env.checks('surrogateEscapesRefused')) return [{ at: b.at, message: 'invalid unicode code point' }];
      return b.problem === 'surrogate' ? [] : [{ at: b.at, message: 'unable to unescape string' }];
    }),
  ].sort((a, b) => a.at - b.at);
  if (literalErrors.length > 0) {
    return {
      type: DYN,
      errors: literalErrors.map((l) => `ERROR: <input>:${location(source, toSource(l.at))}: ${l.message}`),
      unsupported: [],
      usesOldSelf: /\boldSelf\b/.test(source),
      ast: { root: ast.root, types: new Map(), overloads: new Map(), globalNames: new Map() },
    };
  }
  // without the optional library, cel-go's parser refuses the optional syntax (`.?` at its `.`, an index's `[?` at its
  // `[`, a list element's `?` at the `?`): the only error reported
  const optionalSyntax = env.has('optionalTypes') ? [] : optionalSyntaxAt(source);
  if (optionalSyntax.length > 0) {
    return {
      type: DYN,
      errors: optionalSyntax.map((o) => `ERROR: <input>:${location(source, o.at)}: unsupported syntax '${o.syntax}'`),
      unsupported: [],
      usesOldSelf: /\boldSelf\b/.test(source),
      missing: ['optionalTypes'],
      ast: { root: ast.root, types: new Map(), overloads: new Map(), globalNames: new Map() },
    };
  }
  const checker = new TypeChecker(
    rewritten,
    ast.positions,
    variables,
    options.functions ? declsByName(options.functions) : undefined,
    options.withheld,
    options.strict === true,
    env,
  );
  checker.structs = options.structs;
  checker.shownAt = (at) => (at === undefined ? '1:1' : location(source, toSource(at)));
  const t = checker.visit(ast.root, new Map());
  return {
    type: t,
    errors: [...checker.errors].sort((a, b) => a.at - b.at).map((err) => err.text),
    unsupported: [...checker.unsupported],
    usesOldSelf: checker.usesOldSelf,
    missing: [...checker.missing],
    literalError: checker.literalError,
    ast: { root: ast.root, types: checker.types, overloads: checker.overloads, globalNames: checker.globalNames },
  };
}

/** What an environment adds to the CRD one (admission policies: the authorizer library). */
export interface CheckOptions {
  /** Functions declared beside the standard and Kubernetes ones (looked up after them). */
  readonly functions?: readonly FunctionDecl[];
  /**
   * Functions (and namespaced functions, `math.greatest`) the environment does not offer: calls are undeclared
   * references, as cel-go reports them (`undeclared reference to 'math'` and `… to 'greatest'`).
   */
  readonly withheld?: ReadonlySet<string>;
  /**
   * cel-go checks that CRD rules here do not apply yet (admission policies use them; their verdicts are compared with
   * kube-apiserver 1.32's): literal arguments of `matches`, `duration` and `timestamp` are validated (cel-go's AST validators);
   * `has()` errors are placed at its parenthesis; a reserved word selects its escaped field (`x.namespace` reads
   * `__namespace__`, the DeclTypeProvider's `recognizeKeywordAsFieldName`).
   */
  readonly strict?: boolean;
  /** The Kubernetes version whose CEL environment (`CEL_LIBRARIES`) compiles the expression. @default '1.32' */
  readonly version?: KubernetesVersion;
  /**
   * Message types the expression may construct (`Object.spec{replicas: 3}`, `JSONPatch{op: 'add', …}`: a mutating
   * admission policy's environment): the declaration of a message name, or undefined for an undeclared one.
   */
  readonly structs?: (messageName: string) => StructDecl | undefined;
}

/** A message type an expression may construct. */
export interface StructDecl {
  /** The constructed value's type (an object type named after the message). */
  readonly type: Extract<CelType, { kind: 'object' }>;
  /** Whether fields the type does not declare are accepted (as dyn). */
  readonly open: boolean;
  /**
   * How an undeclared field is reported: cel-go's `undefined field 'f'`, or (a declared message type of the apiserver,
   * JSONPatch) `expected type of field 'f' is '' but provided type is 'string'`.
   */
  readonly undeclaredField: 'undefined' | 'untyped';
}

/**
 * Where the optional syntax (`x.?f`, `x[?k]`, `[?e]`) appears outside string literals: cel-go's parser without the
 * optional library reports each (`.?` at its `.`, an index's `[?` at its `[`, a list element's `?` at the `?`).
 */
function optionalSyntaxAt(source: string): Array<{ at: number; syntax: string }> {
  if (!source.includes('.?') && !source.includes('[?')) return [];
  const code = source.replace(/(['"])(?:\\.|(?!\1)[^\\])*\1/g, (m) => ' '.repeat(m.length));
  const found: Array<{ at: number; syntax: string }> = [];
  for (const m of code.matchAll(/\.\s*\?|\[\s*\?/g)) {
    if (m[0].startsWith('.')) found.push({ at: m.index!, syntax: '.?' });
    else if (/[\w\])}]\s*$/.test(code.slice(0, m.index!))) found.push({ at: m.index!, syntax: '[?' });
    else found.push({ at: m.index! + m[0].length - 1, syntax: '?' });
  }
  return found;
}

/**
 * Parsing is the slow part of checking a rule, and CRDs repeat their rules (every version of a schema, shared
 * types): each distinct expression is parsed once. The checker and the cost estimator only read the AST.
 */
const parseCache = new Map<string, ReturnType<typeof parseRule> | { error: string }>();
const PARSE_CACHE_LIMIT = 10_000;

function parsed(source: string): ReturnType<typeof parseRule> | { error: string } {
  let hit = parseCache.get(source);
  if (!hit) {
    try {
      hit = parseRule(source);
    } catch (e) {
      hit = { error: (e as Error).message.replace(/^<input>:/, '') };
    }
    if (parseCache.size >= PARSE_CACHE_LIMIT) parseCache.clear();
    parseCache.set(source, hit);
  }
  return hit;
}

type Scope = ReadonlyMap<string, CelType>;

const NUMERIC = new Set(['int', 'uint', 'double']);
/** The type of a call of an undeclared member function before cel-go v0.17 (`CEL_CHECKER_CHANGES.undeclaredMembersTyped`). */
const NIL_TYPE: CelType = opaque('Untyped');
/** cel-go's error type (an undeclared identifier), dyn to every check; cel-go before v0.17 prints it `!error!`. */
const ERROR_TYPE: CelType = { kind: 'dyn' };
const BINARY_OPERATORS: Readonly<Record<string, string>> = {
  '_<_': '<',
  '_<=_': '<=',
  '_>_': '>',
  '_>=_': '>=',
  '_==_': '==',
  '_!=_': '!=',
  '_+_': '+',
  '_-_': '-',
  '_*_': '*',
  '_/_': '/',
  '_%_': '%',
  '@in': 'in',
  '_&&_': '&&',
  '_||_': '||',
};
/** The iteration variable of the comprehension `cel.bind` expands to (macros.ts). */
const BIND_ITER_VAR = '#unused';

/** cel-go's arithmetic overloads as (left, right, result) kinds; a list's result is the list operand's type. */
const NUMERIC_OVERLOADS: ReadonlyArray<readonly [string, string, string]> = [
  ['int', 'int', 'int'],
  ['uint', 'uint', 'uint'],
  ['double', 'double', 'double'],
];
const ARITHMETIC_OVERLOADS: Readonly<Record<string, ReadonlyArray<readonly [string, string, string]>>> = {
  '_+_': [
    ...NUMERIC_OVERLOADS,
    ['string', 'string', 'string'],
    ['bytes', 'bytes', 'bytes'],
    ['list', 'list', 'list'],
    ['timestamp', 'duration', 'timestamp'],
    ['duration', 'timestamp', 'timestamp'],
    ['duration', 'duration', 'duration'],
  ],
  '_-_': [
    ...NUMERIC_OVERLOADS,
    ['timestamp', 'timestamp', 'duration'],
    ['timestamp', 'duration', 'timestamp'],
    ['duration', 'duration', 'duration'],
  ],
  '_*_': NUMERIC_OVERLOADS,
  '_/_': NUMERIC_OVERLOADS,
  '_%_': [
    ['int', 'int', 'int'],
    ['uint', 'uint', 'uint'],
  ],
};

class TypeChecker {
  /** Errors with their offset in the source: cel-go reports them sorted by location. */
  public readonly errors: Array<{ readonly at: number; readonly text: string }> = [];
  public readonly unsupported = new Set<string>();
  public readonly missing = new Set<CelLibrary>();
  /** The first bad literal's Go error, where the version does not validate literals at compile (`literalError`). */
  public literalError?: string;
  public readonly types = new Map<bigint, CelType>();
  public readonly overloads = new Map<bigint, readonly string[]>();
  public readonly globalNames = new Map<bigint, string>();
  public usesOldSelf = false;
  public structs?: (messageName: string) => StructDecl | undefined;
  /** Literals passed straight to `format()`, exempt from the homogeneous-literal check (as the strings extension asks). */
  private readonly exemptLiterals = new Set<bigint>();

  constructor(
    private readonly source: string,
    private readonly positions: Record<string, number>,
    private readonly variables: Readonly<Record<string, CelType>>,
    private readonly extraDecls?: ReadonlyMap<string, FunctionDecl[]>,
    private readonly withheld?: ReadonlySet<string>,
    private readonly strict = false,
    private readonly env: CelEnvironment = celEnvironment(),
  ) {}

  /** The type of an undeclared function's call: an error type (dyn here), or for a member call on 1.28, none (`<nil>`). */
  private undeclaredResult(target: CelType | undefined): CelType {
    return target && !this.env.checks('undeclaredMembersTyped') ? NIL_TYPE : DYN;
  }

  /** `line:column` in the source as written of an offset in the (rewritten) text checked. */
  public shownAt: (offset: number | undefined) => string = (offset) => location(this.source, offset);

  private exemptNested(e: AstExpr): void {
    this.exemptLiterals.add(e.id);
    const k = e.exprKind;
    if (k.case === 'listExpr') k.value.elements.forEach((x) => this.exemptNested(x));
    if (k.case === 'structExpr') {
      k.value.entries.forEach((en) => {
        if (en.value) this.exemptNested(en.value);
      });
    }
  }

  /** Whether the environment declares `name` at all (an overload of an offered library, or of the extra declarations). */
  private declared(name: string): boolean {
    if (NOT_OFFERED.has(name) || this.withheld?.has(name)) return false;
    return (
      (DECLS_BY_NAME.get(name) ?? []).some((d) => this.offers(d)) ||
      (this.extraDecls?.has(name) ?? false) ||
      UNSUPPORTED_FUNCTIONS.has(name)
    );
  }

  private offers(d: FunctionDecl): boolean {
    return d.library === undefined || this.env.has(d.library);
  }

  /** The library a name would come from in a newer environment, recorded as missing. */
  private noteMissing(name: string): void {
    const lib = (DECLS_BY_NAME.get(name) ?? []).find(
      (d) => d.library !== undefined && !this.env.has(d.library),
    )?.library;
    if (lib) this.missing.add(lib);
  }

  public visit(e: AstExpr, scope: Scope): CelType {
    const t = this.typeOf(e, scope);
    this.types.set(e.id, t);
    return t;
  }

  private typeOf(e: AstExpr, scope: Scope): CelType {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return constType(k.value.constantKind.case);
      case 'identExpr':
        return this.ident(e, k.value.name, scope);
      case 'selectExpr':
        return this.select(e, k.value.operand!, k.value.field, k.value.testOnly, scope);
      case 'callExpr':
        return this.call(e, k.value.function, k.value.target, k.value.args, scope);
      case 'listExpr': {
        const items = k.value.elements.map((x) => this.visit(x, scope));
        if (!this.exemptLiterals.has(e.id)) this.homogeneous(k.value.elements, items);
        const elem = items.reduce<CelType | undefined>((acc, x) => (acc ? joinTypes(acc, x) : x), undefined) ?? DYN;
        return { kind: 'list', elem };
      }
      case 'structExpr': {
        const decl = k.value.messageName ? this.structs?.(k.value.messageName) : undefined;
        if (decl) return this.construct(decl, k.value.entries, scope);
        const values = k.value.entries.map((en) => (en.value ? this.visit(en.value, scope) : DYN));
        const keys = k.value.entries.map((en) =>
          en.keyKind.case === 'mapKey' ? this.visit(en.keyKind.value as AstExpr, scope) : STRING,
        );
        if (!k.value.messageName && !this.exemptLiterals.has(e.id)) {
          this.homogeneous(
            k.value.entries.map((en) => en.keyKind.value as AstExpr),
            keys,
          );
          this.homogeneous(
            k.value.entries.map((en) => en.value!),
            values,
          );
        }
        if (k.value.messageName) this.error(e, `undeclared reference to '${k.value.messageName}' (in container '')`);
        const key = keys.reduce<CelType | undefined>((a, x) => (a ? joinTypes(a, x) : x), undefined) ?? DYN;
        const value = values.reduce<CelType | undefined>((a, x) => (a ? joinTypes(a, x) : x), undefined) ?? DYN;
        return mapOf(key, value);
      }
      case 'comprehensionExpr':
        return this.comprehension(e, k.value, scope);
      default:
        return DYN;
    }
  }

  /** `Msg{f: v, …}`: each field's value checked against the field's type, reported at the field's `:` as cel-go does. */
  private construct(
    decl: StructDecl,
    entries: Extract<AstExpr['exprKind'], { case: 'structExpr' }>['value']['entries'],
    scope: Scope,
  ): CelType {
    for (const entry of entries) {
      const given = entry.value ? this.visit(entry.value, scope) : DYN;
      const written = String(entry.keyKind.value);
      const optional =
        (entry as { optionalEntry?: boolean }).optionalEntry || written.startsWith(OPTIONAL_FIELD_PREFIX);
      const field = written.startsWith(OPTIONAL_FIELD_PREFIX) ? written.slice(OPTIONAL_FIELD_PREFIX.length) : written;
      const declared = decl.type.fields[field];
      const at = this.source.indexOf(':', this.positions[String((entry as { id?: bigint }).id)] ?? 0);
      const report = (message: string) =>
        this.errors.push({ at, text: `ERROR: <input>:${this.shownAt(at)}: ${message}` });
      if (!declared) {
        if (decl.open) continue;
        if (decl.undeclaredField === 'untyped') {
          report(`expected type of field '${field}' is '' but provided type is '${this.shownType(given)}'`);
        } else {
          report(`undefined field '${field}'`);
        }
        continue;
      }
      const value = optional && given.kind === 'opaque' && given.name === 'Optional' ? (given.of ?? DYN) : given;
      // a constructed message (`Object.spec.template{…}`) fills a field of the kind's own type
      const fits =
        declared.kind === 'object' && value.kind === 'object'
          ? declared.name === value.name || value.name.startsWith('Object')
          : isAssignable(declared, value);
      if (!fits) {
        report(
          `expected type of field '${field}' is '${this.shownType(declared)}' but provided type is '${this.shownType(value)}'`,
        );
      }
    }
    return decl.type;
  }

  private ident(e: AstExpr, name: string, scope: Scope): CelType {
    if (scope.has(name)) return scope.get(name)!;
    if (name === 'oldSelf') this.usesOldSelf = true;
    if (name in this.variables) return this.variables[name];
    if (name in TYPE_IDENTIFIERS) return { kind: 'type', of: TYPE_IDENTIFIERS[name] };
    if (name === 'oldSelf') {
      this.error(
        e,
        "undeclared reference to 'oldSelf' (in container ''): oldSelf cannot be used on the uncorrelatable portion of the schema",
      );
    } else {
      this.error(e, `undeclared reference to '${name}' (in container '')`);
      if (!this.env.checks('errorTypeUnnamed')) return ERROR_TYPE;
    }
    return DYN;
  }

  private select(e: AstExpr, operand: AstExpr, field: string, testOnly: boolean, scope: Scope): CelType {
    const qualified = qualifiedName(operand);
    if (qualified && !this.isDeclared(qualified.split('.')[0], scope) && `${qualified}.${field}` in TYPE_IDENTIFIERS) {
      return { kind: 'type', of: TYPE_IDENTIFIERS[`${qualified}.${field}`] };
    }
    // a variable whose name has dots (admission's `authorizer.requestResource`): cel-go resolves the qualified name first
    if (qualified && !scope.has(qualified.split('.')[0]) && `${qualified}.${field}` in this.variables) {
      return testOnly ? BOOL : this.variables[`${qualified}.${field}`];
    }
    const o = this.visit(operand, scope);
    let t: CelType = DYN;
    switch (o.kind) {
      case 'object':
        if (field in o.fields) {
          t = o.fields[field];
        } else if (
          this.strict &&
          this.env.checks('keywordFieldNames') &&
          `__${field}__` in o.fields &&
          CEL_RESERVED.has(field)
        ) {
          t = o.fields[`__${field}__`];
        } else {
          this.error(e, `undefined field '${field}'`);
        }
        break;
      case 'map':
        if (!isAssignable(o.key, STRING)) this.error(e, `type '${typeName(o)}' does not support field selection`);
        t = o.value;
        break;
      case 'dyn':
        break;
      case 'opaque':
        // library object types (the authorizer's) have no fields the type provider can resolve
        if (this.strict && o.name.startsWith('authorization.')) {
          this.error(
            e,
            `${this.env.checks('resolutionErrorsUnprefixed') ? '' : '[internal] '}unexpected failed resolution of '${typeName(o)}'`,
          );
          break;
        }
        this.error(e, `type '${typeName(o)}' does not support field selection`);
        break;
      default:
        this.error(e, `type '${typeName(o)}' does not support field selection`);
    }
    return testOnly ? BOOL : t;
  }

  private isDeclared(name: string, scope: Scope): boolean {
    return scope.has(name) || name in this.variables;
  }

  private comprehension(
    e: AstExpr,
    v: Extract<AstExpr['exprKind'], { case: 'comprehensionExpr' }>['value'],
    scope: Scope,
  ): CelType {
    if (v.iterVar2) this.unsupported.add('two-variable comprehensions');
    // cel.bind is cel-go's bindings extension, which no supported version offers (NOT_OFFERED)
    if (v.iterVar === BIND_ITER_VAR) return this.unexpandedBind(e, v, scope);
    const range = this.visit(v.iterRange!, scope);
    let iter: CelType = DYN;
    switch (range.kind) {
      case 'list':
        iter = range.elem;
        break;
      case 'map':
        iter = range.key;
        break;
      case 'dyn':
        break;
      default:
        this.error(
          e,
          `expression of type '${typeName(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
        );
    }
    const init = this.visit(v.accuInit!, scope);
    let accu = init;
    const inner = (a: CelType): Map<string, CelType> => new Map([...scope, [v.iterVar, iter], [v.accuVar, a]]);
    const errorsBefore = this.errors.length;
    let step = this.visit(v.loopStep!, inner(accu));
    // map()/filter() start from an empty list literal: the element type comes from the step
    if (isEmptyList(v.accuInit!) && step.kind === 'list') {
      this.errors.length = errorsBefore;
      accu = step;
      step = this.visit(v.loopStep!, inner(accu));
    } else if (isEmptyList(v.accuInit!)) {
      accu = listOf(DYN);
    }
    this.visit(v.loopCondition!, inner(accu));
    return this.visit(v.result!, inner(accu));
  }

  private call(e: AstExpr, name: string, target: AstExpr | undefined, args: readonly AstExpr[], scope: Scope): CelType {
    // namespaced global functions (`strings.quote(x)`, `sets.contains(a, b)`) parse as method calls
    // (like cel-go, only when such a function exists: `v.size()` with an undeclared `v` is a reference error on `v`)
    const ns = target ? qualifiedName(target) : undefined;
    if (ns && !this.isDeclared(ns.split('.')[0], scope) && this.declared(`${ns}.${name}`)) {
      this.globalNames.set(e.id, `${ns}.${name}`);
      return this.call(e, `${ns}.${name}`, undefined, args, scope);
    }
    if (ns && !this.isDeclared(ns.split('.')[0], scope)) this.noteMissing(`${ns}.${name}`);
    if (target && isTwoVariableCall(name, target, args)) return this.twoVariable(e, name, target, args, scope);
    if (!target && name === '__optList__' && args.length === 2 && args[0].exprKind.case === 'listExpr') {
      return this.optionalList(e, args[0], args[1], scope);
    }
    if (
      target &&
      name === 'sortBy' &&
      args.length === 2 &&
      args[0].exprKind.case === 'identExpr' &&
      this.env.has('lists')
    ) {
      return this.sortBy(e, target, args[0].exprKind.value.name, args[1], scope);
    }
    if (target && name === 'sortBy' && args.length === 2) this.missing.add('lists');
    const tgt = target ? this.visit(target, scope) : undefined;
    // format()'s arguments are exempt from the homogeneous-literal check, nested literals too (measured: `[[1, 'a']]` passes),
    // where the strings extension declares format() (1.28's checker checks them: `expected type 'double' but found 'int'`)
    if (name === 'format' && this.env.has('stringsV2')) for (const a of args) this.exemptNested(a);
    const types = args.map((a) => this.visit(a, scope));
    this.overloads.set(e.id, overloadIds(name, tgt, types));
    if (name === 'format' && target && tgt?.kind === 'string' && this.env.has('stringsV2')) {
      this.validateFormat(e, target, args);
    }
    if (
      tgt &&
      (name === '__optSelect__' || name === '__optChainSelect__' || name === '__optIndex__') &&
      args.length === 1
    ) {
      return this.optionalAccess(e, name, tgt, args[0], types[0]);
    }
    if (tgt?.kind === 'opaque' && tgt.name === 'Optional' && tgt.of && args.length <= 1) {
      if (name === 'value' && args.length === 0) return tgt.of;
      if (name === 'orValue' && args.length === 1) {
        if (tgt.of.kind === 'dyn') return DYN;
        if (!isAssignable(tgt.of, types[0])) this.noOverload(e, name, tgt, types);
        return joinTypes(tgt.of, types[0]);
      }
    }
    if (!this.declared(name) && (NOT_OFFERED.has(name) || this.withheld?.has(name) || DECLS_BY_NAME.has(name))) {
      this.noteMissing(name);
      this.error(e, `undeclared reference to '${name}' (in container '')`);
      return this.undeclaredResult(tgt);
    }
    // an untyped (`<nil>`) operand, which an older checker gives undeclared member calls: no overload accepts it
    if ([tgt, ...types].some((t) => t === NIL_TYPE)) {
      this.noOverload(e, name, tgt, types);
      return DYN;
    }
    this.validateLiteral(name, tgt, args);
    // an empty list literal's element type is free in cel-go: it takes the other branch's (`c ? [] : [JSONPatch{…}]`)
    if (name === '_?_:_' && types.length === 3) {
      if (isEmptyList(args[1]) && types[2].kind === 'list') types[1] = types[2];
      else if (isEmptyList(args[2]) && types[1].kind === 'list') types[2] = types[1];
    }
    const operator = this.operator(e, name, types);
    if (operator) return operator;
    if (name === 'size' && (tgt ? types.length === 0 : types.length === 1)) {
      const of = tgt ?? types[0];
      if (!['string', 'bytes', 'list', 'map', 'dyn'].includes(of.kind)) this.noOverload(e, name, tgt, types);
      return INT;
    }
    if (name === 'type' && !tgt && types.length === 1) return { kind: 'type', of: types[0] };
    // string() of an IP or CIDR came with a later IP library
    if (
      name === 'string' &&
      !tgt &&
      types.length === 1 &&
      types[0].kind === 'opaque' &&
      ['IP', 'CIDR'].includes(types[0].name) &&
      !this.env.has('ipCidrStrings')
    ) {
      this.missing.add('ipCidrStrings');
      this.noOverload(e, name, tgt, types);
      return DYN;
    }

    const offered = [...(DECLS_BY_NAME.get(name) ?? []), ...(this.extraDecls?.get(name) ?? [])].filter((d) =>
      this.offers(d),
    );
    const candidates = offered.filter((d) => (d.target !== undefined) === (tgt !== undefined));
    if (candidates.length === 0) {
      if (
        UNSUPPORTED_FUNCTIONS.has(name) ||
        (tgt?.kind === 'dyn' && (isKnownName(name) || this.extraDecls?.has(name)))
      ) {
        if (UNSUPPORTED_FUNCTIONS.has(name)) this.unsupported.add(name);
        return DYN;
      }
      if (isKnownName(name) || this.extraDecls?.has(name)) {
        this.noOverload(e, name, tgt, types);
      } else {
        this.error(e, `undeclared reference to '${name}' (in container '')`);
        return this.undeclaredResult(tgt);
      }
      return DYN;
    }
    for (const d of candidates) {
      const result = matchOverload(d, tgt, types);
      if (result && name === 'optional.of') return optionalOf(types[0]);
      if (result) {
        return d.library === 'lists' || d.library === 'optionalTypesV2' ? listResult(name, tgt, types, result) : result;
      }
    }
    // an overload only a newer version has (a list's reverse() where the strings' is asked for: no)
    if ((DECLS_BY_NAME.get(name) ?? []).some((d) => !this.offers(d) && matchOverload(d, tgt, types))) {
      this.noteMissing(name);
    }
    if (UNSUPPORTED_FUNCTIONS.has(name)) {
      this.unsupported.add(name);
      return DYN;
    }
    this.noOverload(e, name, tgt, types);
    return DYN;
  }

  /**
   * Two-variable comprehensions (`m.all(k, v, pred)`, `l.transformList(i, v, expr)`…, cel-go's
   * `ext.TwoVarComprehensions`) are not in the environment kube-apiserver 1.32 compiles CRD rules with: to it they
   * are calls of an undeclared function whose arguments `k` and `v` are undeclared references too (checked against
   * the apiserver, test/apiserver/cel/two-variable.test.ts).
   */
  private twoVariable(e: AstExpr, name: string, target: AstExpr, args: readonly AstExpr[], scope: Scope): CelType {
    if (this.env.has('twoVariableComprehensions')) return this.typedTwoVariable(e, name, target, args, scope);
    this.missing.add('twoVariableComprehensions');
    const on = this.visit(target, scope);
    for (const a of args) this.visit(a, scope);
    this.error(e, `undeclared reference to '${name}' (in container '')`);
    return this.undeclaredResult(on);
  }

  /**
   * cel-go's `ext.TwoVarComprehensions` (1.33+): over a list the variables are the index (int) and the element, over a
   * map the key and the value; `all`/`exists`/`existsOne` give bool, `transformList` a list of the expression's type,
   * `transformMap` a map from the range's keys, `transformMapEntry` the map its expression builds.
   */
  private typedTwoVariable(e: AstExpr, name: string, target: AstExpr, args: readonly AstExpr[], scope: Scope): CelType {
    const range = this.visit(target, scope);
    let first: CelType = DYN;
    let second: CelType = DYN;
    if (range.kind === 'list') {
      [first, second] = [INT, range.elem];
    } else if (range.kind === 'map') {
      [first, second] = [range.key, range.value];
    } else if (range.kind !== 'dyn') {
      this.error(
        e,
        `expression of type '${typeName(range)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
      );
    }
    const names = args.slice(0, 2).map((a) => (a.exprKind.case === 'identExpr' ? a.exprKind.value.name : ''));
    const inner: Scope = new Map([...scope, [names[0], first], [names[1], second]]);
    for (const a of args.slice(0, 2)) this.types.set(a.id, a === args[0] ? first : second);
    const rest = args.slice(2).map((a) => this.visit(a, inner));
    const expr = rest[rest.length - 1];
    if (rest.length === 2 && rest[0].kind !== 'bool' && rest[0].kind !== 'dyn') {
      this.noOverload(args[2], '_?_:_', undefined, [rest[0]]);
    }
    this.overloads.set(e.id, [`@twoVariable:${name}`]);
    switch (name) {
      case 'transformList':
        return listOf(expr);
      case 'transformMap':
        return mapOf(first, expr);
      case 'transformMapEntry':
        if (expr.kind !== 'map' && expr.kind !== 'dyn') {
          this.error(
            args[args.length - 1],
            `found no matching overload for 'transformMapEntry' applied to '${typeName(expr)}'`,
          );
        }
        return expr.kind === 'map' ? expr : mapOf(DYN, DYN);
      default:
        if (expr.kind !== 'bool' && expr.kind !== 'dyn') {
          this.noOverload(args[args.length - 1], name === 'all' ? '_&&_' : '_||_', undefined, [BOOL, expr]);
        }
        return BOOL;
    }
  }

  /** A list literal with optional elements (`[?a, b]`, rewritten `__optList__([a, b], [0])`): the optional ones unwrapped. */
  private optionalList(e: AstExpr, list: AstExpr, indices: AstExpr, scope: Scope): CelType {
    const flagged = new Set(
      indices.exprKind.case === 'listExpr'
        ? indices.exprKind.value.elements.map((x) =>
            x.exprKind.case === 'constExpr' ? Number(x.exprKind.value.constantKind.value) : -1,
          )
        : [],
    );
    const elements = list.exprKind.case === 'listExpr' ? list.exprKind.value.elements : [];
    const types = elements.map((x, k) => {
      const t = this.visit(x, scope);
      if (!flagged.has(k)) return t;
      if (t.kind === 'opaque' && t.name === 'Optional') return t.of ?? DYN;
      if (t.kind !== 'dyn') this.error(x, `expected type 'optional_type(${typeName(t)})' but found '${typeName(t)}'`);
      return DYN;
    });
    this.homogeneous(elements, types);
    const elem = types.reduce<CelType | undefined>((acc, x) => (acc ? joinTypes(acc, x) : x), undefined) ?? DYN;
    this.overloads.set(e.id, ['__optList__']);
    return listOf(elem);
  }

  /** The lists extension's `sortBy(x, key)` macro: `x` bound to each element, keys of one orderable type; the list's type. */
  private sortBy(e: AstExpr, target: AstExpr, variable: string, key: AstExpr, scope: Scope): CelType {
    const range = this.visit(target, scope);
    const elem = range.kind === 'list' ? range.elem : DYN;
    if (range.kind !== 'list' && range.kind !== 'dyn') this.noOverload(e, 'sortBy', range, []);
    const keyType = this.visit(key, new Map([...scope, [variable, elem]]));
    if (!['int', 'uint', 'double', 'string', 'bytes', 'bool', 'timestamp', 'duration', 'dyn'].includes(keyType.kind)) {
      this.noOverload(e, '@sortByAssociatedKeys', undefined, [range, listOf(keyType)]);
    }
    this.overloads.set(e.id, ['@sortBy']);
    return range.kind === 'list' ? range : listOf(DYN);
  }

  /** `x.?f` / `x[?k]` (rewritten to `__optSelect__` / `__optIndex__`): an optional of the field, entry or element. */
  private optionalAccess(e: AstExpr, name: string, on: CelType, arg: AstExpr, argType: CelType): CelType {
    const inner = on.kind === 'opaque' && on.name === 'Optional' ? (on.of ?? DYN) : on;
    if (name === '__optIndex__') {
      if (inner.kind === 'dyn') return optionalOf(DYN);
      return optionalOf(this.index(e, inner, argType));
    }
    const field = arg.exprKind.case === 'constExpr' ? String(arg.exprKind.value.constantKind.value) : '';
    switch (inner.kind) {
      case 'object':
        if (!(field in inner.fields)) this.error(e, `undefined field '${field}'`);
        return optionalOf(inner.fields[field] ?? DYN);
      case 'map':
        return optionalOf(inner.value);
      case 'dyn':
        return optionalOf(DYN);
    }
    this.error(e, `type '${typeName(inner)}' does not support field selection`);
    return optionalOf(DYN);
  }

  /** Operators and macros-helpers, typed like cel-go's standard declarations. */
  private operator(e: AstExpr, name: string, a: CelType[]): CelType | undefined {
    const bool = (ok: boolean): CelType => {
      if (!ok) this.noOverload(e, name, undefined, a);
      return BOOL;
    };
    switch (name) {
      case '_&&_':
      case '_||_':
        return bool(a.every((x) => x.kind === 'bool' || x.kind === 'dyn'));
      case '!_':
      case '@not_strictly_false':
      case '__not_strictly_false__':
        return bool(a[0].kind === 'bool' || a[0].kind === 'dyn');
      case '_==_':
      case '_!=_':
        return bool(comparable(a[0], a[1]) && nullComparable(a[0], a[1]));
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_':
        return bool(this.crossNumeric(a[0], a[1]) && ordered(a[0], a[1]));
      case '@in':
        if (a[1].kind === 'list') return bool(comparable(a[0], a[1].elem) && nullComparable(a[0], a[1].elem));
        if (a[1].kind === 'map') return bool(comparable(a[0], a[1].key) && nullComparable(a[0], a[1].key));
        return bool(a[1].kind === 'dyn');
      case '_?_:_':
        if (a[0].kind !== 'bool' && a[0].kind !== 'dyn') this.noOverload(e, name, undefined, a);
        // cel-go unifies both branches (`_?_:_(bool, A, A)`): `cond ? 'x' : null` has no overload
        else if (!unifiable(a[1], a[2])) this.noOverload(e, name, undefined, a);
        return joinTypes(a[1], a[2]);
      case '_[_]':
        return this.index(e, a[0], a[1]);
      case '-_':
        if (!['int', 'double', 'dyn'].includes(a[0].kind)) this.noOverload(e, name, undefined, a);
        return a[0];
      case '_+_':
      case '_-_':
      case '_*_':
      case '_/_':
      case '_%_':
        return this.arithmetic(e, name, a[0], a[1]);
    }
    return undefined;
  }

  /** int, uint and double compare with each other only where the version has cross-type numeric comparisons. */
  private crossNumeric(a: CelType, b: CelType): boolean {
    if (
      this.env.has('crossTypeNumericComparisons') ||
      !NUMERIC.has(a.kind) ||
      !NUMERIC.has(b.kind) ||
      a.kind === b.kind
    ) {
      return true;
    }
    this.missing.add('crossTypeNumericComparisons');
    return false;
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
      case 'dyn':
        return DYN;
    }
    this.noOverload(e, '_[_]', undefined, [on, key]);
    return DYN;
  }

  private arithmetic(e: AstExpr, name: string, l: CelType, r: CelType): CelType {
    if (l.kind === 'dyn' && r.kind === 'dyn') return DYN;
    if (l.kind === 'dyn' || r.kind === 'dyn') return this.dynArithmetic(e, name, l, r);
    const same = l.kind === r.kind;
    if (same && NUMERIC.has(l.kind) && !(name === '_%_' && l.kind === 'double')) return l;
    if (name === '_+_') {
      if (same && (l.kind === 'string' || l.kind === 'bytes')) return { kind: l.kind };
      if (l.kind === 'list' && r.kind === 'list') return listOf(joinTypes(l.elem, r.elem));
      if ((l.kind === 'timestamp' && r.kind === 'duration') || (l.kind === 'duration' && r.kind === 'timestamp')) {
        return TIMESTAMP;
      }
      if (same && l.kind === 'duration') return DURATION;
    }
    if (name === '_-_') {
      if (same && l.kind === 'timestamp') return DURATION;
      if (l.kind === 'timestamp' && r.kind === 'duration') return TIMESTAMP;
      if (same && l.kind === 'duration') return DURATION;
    }
    this.noOverload(e, name, undefined, [l, r]);
    return DYN;
  }

  /**
   * One dyn operand: every overload the other operand's type fits is a candidate, and cel-go's result is their result
   * type when they agree, else dyn (`dyn - duration` is a timestamp or a duration: dyn; `dyn + int` is an int).
   */
  private dynArithmetic(e: AstExpr, name: string, l: CelType, r: CelType): CelType {
    const known = l.kind === 'dyn' ? r : l;
    const results = (ARITHMETIC_OVERLOADS[name] ?? [])
      .filter(([a, b]) => (l.kind === 'dyn' || a === l.kind) && (r.kind === 'dyn' || b === r.kind))
      .map(([, , result]) => result);
    if (results.length === 0) {
      this.noOverload(e, name, undefined, [l, r]);
      return DYN;
    }
    if (results.some((x) => x !== results[0])) return DYN;
    return results[0] === known.kind ? known : ({ kind: results[0] } as CelType);
  }

  /** The strings extension's compile-time check of a literal format string with a list literal of arguments. */
  private validateFormat(e: AstExpr, target: AstExpr, args: readonly AstExpr[]): void {
    const format =
      target.exprKind.case === 'constExpr' && target.exprKind.value.constantKind.case === 'stringValue'
        ? String(target.exprKind.value.constantKind.value)
        : undefined;
    const list =
      args.length === 1 && args[0].exprKind.case === 'listExpr' ? args[0].exprKind.value.elements : undefined;
    if (format === undefined || !list) return;
    const typeOf = (x: AstExpr): CelType => this.types.get(x.id) ?? DYN;
    const fits = (x: AstExpr, kinds: readonly string[]) => typeOf(x).kind === 'dyn' || kinds.includes(typeOf(x).kind);
    const badForString = (x: AstExpr): AstExpr | undefined => {
      if (!fits(x, FORMAT_CLAUSE_KINDS.s.kinds)) return x;
      const k = x.exprKind;
      if (k.case === 'listExpr') {
        for (const el of k.value.elements) {
          const bad = badForString(el);
          if (bad) return bad;
        }
      }
      if (k.case === 'structExpr' && k.value.messageName === '') {
        for (const entry of k.value.entries) {
          const bad =
            (entry.keyKind.case === 'mapKey' ? badForString(entry.keyKind.value as AstExpr) : undefined) ??
            (entry.value ? badForString(entry.value) : undefined);
          if (bad) return bad;
        }
      }
      return undefined;
    };
    const problem = validateFormatStatically(format, list.length, (verb, index) => {
      const arg = list[index];
      const bad = verb === 's' ? badForString(arg) : fits(arg, FORMAT_CLAUSE_KINDS[verb].kinds) ? undefined : arg;
      return bad
        ? { message: FORMAT_CLAUSE_KINDS[verb].error.replace('%s', formatTypeName(typeOf(bad))), at: bad }
        : undefined;
    });
    if (problem) this.error((problem.at as AstExpr | undefined) ?? e, problem.message);
  }

  /** cel-go's `ValidateRegexLiterals`, `ValidateDurationLiterals` and `ValidateTimestampLiterals`: at the literal. */
  private validateLiteral(name: string, target: CelType | undefined, args: readonly AstExpr[]): void {
    const literal = (a: AstExpr | undefined): string | undefined =>
      a?.exprKind.case === 'constExpr' && a.exprKind.value.constantKind.case === 'stringValue'
        ? String(a.exprKind.value.constantKind.value)
        : undefined;
    const arg =
      name === 'matches'
        ? args[target ? 0 : 1]
        : (name === 'duration' || name === 'timestamp') && !target && args.length === 1
          ? args[0]
          : undefined;
    const value = literal(arg);
    if (value === undefined || !arg) return;
    const regexpError = name === 'matches' ? goRegexpError(value) : undefined;
    const bad =
      name === 'matches' ? regexpError !== undefined : name === 'duration' ? !isGoDuration(value) : !isRfc3339(value);
    if (!bad) return;
    if (this.env.has('literalValidators')) {
      this.error(arg, `invalid ${name} argument`);
      return;
    }
    // before the validators, the literal failed when the program was planned (constant folding), after compiling
    this.missing.add('literalValidators');
    this.literalError ??=
      regexpError ??
      `type conversion error from 'string' to 'google.protobuf.${name === 'duration' ? 'Duration' : 'Timestamp'}'`;
  }

  /**
   * `cel.bind(x, init, body)` where the bindings extension is not offered: cel-go checks it as a call of an undeclared
   * `cel.bind` whose arguments are plain expressions (`x` an undeclared reference, in the body too).
   */
  private unexpandedBind(
    e: AstExpr,
    v: Extract<AstExpr['exprKind'], { case: 'comprehensionExpr' }>['value'],
    scope: Scope,
  ): CelType {
    const at = this.positions[e.id.toString()] ?? 0;
    const cel = this.source.lastIndexOf('cel', at);
    const open = this.source.indexOf('(', at);
    const variable = this.source.indexOf(v.accuVar, open);
    const report = (offset: number, name: string) =>
      this.errors.push({
        at: offset,
        text: `ERROR: <input>:${location(this.source, offset)}: undeclared reference to '${name}' (in container '')`,
      });
    if (cel >= 0) report(cel, 'cel');
    if (open >= 0) report(open, 'bind');
    if (variable >= 0 && !scope.has(v.accuVar)) report(variable, v.accuVar);
    this.visit(v.accuInit!, scope);
    this.visit(v.result!, scope);
    return DYN;
  }

  /** cel-go's `ValidateHomogeneousAggregateLiterals`: every element (key, value) of a literal has the first one's type. */
  private homogeneous(exprs: readonly AstExpr[], types: readonly CelType[]): void {
    if (types.length === 0) return;
    if (!this.env.checks('homogeneousLiteralsValidated')) {
      // cel-go v0.16's checker option: each element joins the type so far when either is assignable to the other
      let joined = types[0];
      types.forEach((t, i) => {
        if (i === 0) return;
        const sameObject = joined.kind !== 'object' || t.kind !== 'object' || joined.name === t.name;
        if (sameObject && isAssignable(joined, t)) {
          joined = joined.kind === 'dyn' || t.kind === 'dyn' ? DYN : joined;
        } else {
          this.error(exprs[i], `expected type '${this.shownType(joined)}' but found '${this.shownType(t)}'`);
          joined = DYN;
        }
      });
      return;
    }
    const first = types[0];
    types.forEach((t, i) => {
      if (i > 0 && !equivalentTypes(first, t)) {
        this.error(exprs[i], `expected type '${this.shownType(first)}' but found '${this.shownType(t)}'`);
      }
    });
  }

  /** How cel-go prints a type in its checker errors (`FormatCELType`: null is `null`). */
  private shownType(t: CelType): string {
    if (t === NIL_TYPE) return '<nil>';
    if (t === ERROR_TYPE && !this.env.checks('errorTypeUnnamed')) return '!error!';
    // cel-go names durations and timestamps by their CEL names in these messages (measured: `'(duration)'` on 1.28, 1.32, 1.36)
    if (t.kind === 'duration' || t.kind === 'timestamp') return t.kind;
    if (!this.env.checks('kubernetesTypeNames') && t.kind === 'opaque' && (t.name === 'IP' || t.name === 'CIDR')) {
      return t.name === 'IP' ? 'net.IP' : 'net.CIDR()';
    }
    return t.kind === 'null' ? 'null' : typeName(t);
  }

  private noOverload(e: AstExpr, name: string, target: CelType | undefined, args: CelType[]): void {
    const shown = `${target && target !== NIL_TYPE ? `${this.shownType(target)}.` : target ? '<nil>.' : ''}(${args.map((a) => this.shownType(a)).join(', ')})`;
    this.error(e, `found no matching overload for '${name}' applied to '${shown}'`);
  }

  private error(e: AstExpr, message: string): void {
    let at = this.positions[e.id.toString()];
    // cel-go places a function call at its opening parenthesis (`self.foo(` is 1:9), the parser here at the
    // function name or the dot before it
    if (at !== undefined && e.exprKind.case === 'callExpr' && /^[A-Za-z][\w.]*$/.test(e.exprKind.value.function)) {
      const open = this.source.indexOf('(', at);
      if (open >= 0) at = open;
    }
    // a binary operator sits at its symbol in cel-go (the parser here places it after the left operand, or for `&&`
    // and `||` at the start): the last one before the right operand
    const symbol = e.exprKind.case === 'callExpr' ? BINARY_OPERATORS[e.exprKind.value.function] : undefined;
    if (symbol && e.exprKind.case === 'callExpr' && e.exprKind.value.args.length === 2) {
      const right = leftmostOffset(e.exprKind.value.args[1], this.positions);
      const found = right !== undefined ? this.source.lastIndexOf(symbol, right - 1) : -1;
      if (found >= 0) at = found;
    }
    // a conditional sits at its `?` in cel-go: the last one before the first branch
    if (e.exprKind.case === 'callExpr' && e.exprKind.value.function === '_?_:_') {
      const branch = this.positions[e.exprKind.value.args[1]?.id.toString() ?? ''];
      if (branch !== undefined && this.source.lastIndexOf('?', branch) >= 0) at = this.source.lastIndexOf('?', branch);
    }
    // the has() macro's selection sits at the macro call's parenthesis in cel-go
    if (
      this.strict &&
      at !== undefined &&
      e.exprKind.case === 'selectExpr' &&
      e.exprKind.value.testOnly &&
      this.source.startsWith('has', at)
    ) {
      const open = this.source.indexOf('(', at);
      if (open >= 0) at = open;
    }
    this.errors.push({ at: at ?? 0, text: `ERROR: <input>:${this.shownAt(at)}: ${message}` });
  }
}

/** The source offset of the leftmost token of `e` (the start of the expression, before any parenthesis). */
function leftmostOffset(e: AstExpr, positions: Record<string, number>): number | undefined {
  const k = e.exprKind;
  if (k.case === 'callExpr') {
    const first =
      k.value.target ??
      (BINARY_OPERATORS[k.value.function] || k.value.function === '_[_]' ? k.value.args[0] : undefined);
    if (first) return leftmostOffset(first, positions);
  }
  if (k.case === 'selectExpr' && k.value.operand) return leftmostOffset(k.value.operand, positions);
  return positions[e.id.toString()];
}

/**
 * The result types of the lists extension and the newer optional helpers (declared with the element type `T`):
 * `slice`/`distinct`/`reverse`/`sort` keep the list's type, `flatten` removes one level of nesting (`flatten(n)`: up to
 * n levels), `first`/`last` give an optional element, `optional.unwrap` the values of a list of optionals.
 */
function listResult(name: string, target: CelType | undefined, args: readonly CelType[], elem: CelType): CelType {
  switch (name) {
    case 'slice':
    case 'distinct':
    case 'reverse':
    case 'sort':
      return target?.kind === 'list' ? target : listOf(elem);
    case 'flatten':
      return listOf(args.length === 0 && elem.kind === 'list' ? elem.elem : DYN);
    case 'first':
    case 'last':
      return optionalOf(elem);
    case 'optional.unwrap': {
      const list = args[0];
      const inner =
        list?.kind === 'list' && list.elem.kind === 'opaque' && list.elem.name === 'Optional'
          ? (list.elem.of ?? DYN)
          : DYN;
      return listOf(inner);
    }
    case 'lists.range':
      return listOf(INT);
  }
  return elem;
}

/** cel-go's `Type.TypeName()`: a parameterized type by its bare name (`list`, `map`, `optional_type`). */
function formatTypeName(t: CelType): string {
  if (t.kind === 'list' || t.kind === 'map') return t.kind;
  if (t.kind === 'opaque' && t.name === 'Optional') return 'optional_type';
  return typeName(t);
}

function isEmptyList(e: AstExpr): boolean {
  return e.exprKind.case === 'listExpr' && e.exprKind.value.elements.length === 0;
}

function constType(kind: string | undefined): CelType {
  switch (kind) {
    case 'boolValue':
      return BOOL;
    case 'int64Value':
      return INT;
    case 'uint64Value':
      return { kind: 'uint' };
    case 'doubleValue':
      return { kind: 'double' };
    case 'stringValue':
      return STRING;
    case 'bytesValue':
      return { kind: 'bytes' };
    case 'nullValue':
      return { kind: 'null' };
    default:
      return DYN;
  }
}

/** `Type.IsEquivalentType`: same kind, same parameters, same name. */
function equivalentTypes(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return equivalentTypes(a.elem, (b as typeof a).elem);
    case 'map':
      return equivalentTypes(a.key, (b as typeof a).key) && equivalentTypes(a.value, (b as typeof a).value);
    case 'object':
    case 'opaque':
      return a.name === (b as typeof a).name;
    default:
      return true;
  }
}

/** Whether two branch types bind one type parameter in cel-go (dyn binds anything; null only nullable types). */
function unifiable(a: CelType, b: CelType): boolean {
  if (a.kind === 'dyn' || b.kind === 'dyn') return true;
  if (a.kind === 'null' || b.kind === 'null') return nullComparable(a, b);
  return isAssignable(a, b) || isAssignable(b, a);
}

/** cel-go's nullness rule: `null` is assignable only to nullable types (`isLegacyNullable`, dyn). */
function nullComparable(a: CelType, b: CelType): boolean {
  const nullable = (t: CelType) => ['null', 'dyn', 'object', 'opaque', 'timestamp', 'duration'].includes(t.kind);
  if (a.kind === 'null') return nullable(b);
  if (b.kind === 'null') return nullable(a);
  return true;
}

/** Go's `time.ParseDuration` syntax (cel-go's `duration()`). */
function isGoDuration(s: string): boolean {
  return s === '0' || /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s) || /^[-+]0$/.test(s);
}

/** RFC 3339 as cel-go's `timestamp()` parses it (`time.RFC3339`), with a real date and time. */
function isRfc3339(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return (
    mo >= 1 &&
    mo <= 12 &&
    d >= 1 &&
    d <= days &&
    h <= 23 &&
    mi <= 59 &&
    se <= 59 &&
    (m[9] === undefined || (Number(m[9]) <= 23 && Number(m[10]) <= 59))
  );
}

function comparable(a: CelType, b: CelType): boolean {
  if (a.kind === 'null' || b.kind === 'null') return true;
  // `_==_(A, A)`: two object types bind A only when they are the same type (`Deployment.spec.template` is not
  // `Deployment.spec.selector`; measured on 1.28, 1.32 and 1.36)
  if (a.kind === 'object' && b.kind === 'object') return a.name === b.name;
  // no heterogeneous numeric equality at compile time: `_==_(A, A)` (measured: `2 == 2u` fails on 1.28, 1.32 and 1.36)
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
    const p = d.args[i] === 'T' ? elem : (d.args[i] as CelType);
    if (!isAssignable(p, args[i])) return undefined;
  }
  if (d.target === 'list' && (d.name === 'sum' || d.name === 'min' || d.name === 'max' || d.name === 'isSorted')) {
    const ok = [
      'int',
      'uint',
      'double',
      'dyn',
      ...(d.name === 'sum' ? ['duration'] : ['string', 'bytes', 'bool', 'timestamp', 'duration']),
    ];
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

/** FUNCTION_DECLS by name, in their order: every call of every rule looks its overloads up. */
const DECLS_BY_NAME = declsByName(FUNCTION_DECLS);

function declsByName(decls: readonly FunctionDecl[]): Map<string, FunctionDecl[]> {
  const byName = new Map<string, FunctionDecl[]>();
  for (const d of decls) {
    const same = byName.get(d.name);
    if (same) same.push(d);
    else byName.set(d.name, [d]);
  }
  return byName;
}

function isKnownName(name: string): boolean {
  return DECLS_BY_NAME.has(name);
}
