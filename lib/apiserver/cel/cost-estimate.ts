import { AstExpr } from './ast';
import { CelType, DYN } from './cel-types';
import {
  add,
  CONST_COST,
  LIST_CREATE_BASE_COST,
  MAP_CREATE_BASE_COST,
  MAX_UINT64,
  multiply,
  multiplyByCostFactor,
  ONE,
  Range,
  range,
  REGEX_STRING_LENGTH_COST_FACTOR,
  SELECT_AND_IDENT_COST,
  STRING_TRAVERSAL_COST_FACTOR,
  STRUCT_CREATE_BASE_COST,
  sum,
  union,
  UNKNOWN_SIZE,
  ZERO,
} from './cost-units';
import { kubernetesCallCost, SizeSource } from './kubernetes-cost';
import { CheckedAst } from './type-checker';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';

/**
 * An expression node as the estimator sees it (cel-go `checker.AstNode`): its field path from a
 * declared variable (`['self', 'spec', 'items', '@items']`), its type, and the size CEL itself knows
 * (constants, literals, results of earlier calls).
 */
export interface CostNode {
  readonly path?: readonly string[];
  readonly type: CelType;
  readonly expr?: AstExpr;
  readonly computedSize?: Range;
}

/**
 * The apiserver's static cost estimate of a checked CEL expression: a line-by-line port of cel-go v0.22
 * `checker/cost.go` (the version Kubernetes 1.32 vendors), with the Kubernetes library estimator
 * (`apiserver/pkg/cel/library/cost.go`), cel-go's sets extension estimator, and the apiextensions
 * size estimator, which bounds a value by the `MaxElements` of its schema node (`self` = `root`).
 *
 * Quirks are kept on purpose, since the apiserver's verdict depends on them: e.g. selecting a field of
 * a `dyn` value is free, comparing two integers read from the schema costs 0, and a comprehension's
 * variable over a list literal is sized like `self`.
 */
export function estimateCost(
  ast: CheckedAst,
  root: CelType,
  roots?: Readonly<Record<string, CelType>>,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Range {
  return new Coster(ast, root, roots, version).cost(ast.root);
}

/** The accumulator name cel-go's macros use (`__result__`), and the one of the local parser. */
const ACCUMULATOR_NAMES = new Set(['__result__', '@result']);

class Coster implements SizeSource {
  private readonly exprPath = new Map<bigint, readonly string[]>();
  private readonly iterRanges = new Map<string, bigint[]>();
  /** The schema paths of two-variable comprehensions' variables (an element or a map value: `@items`, `@values`). */
  private readonly boundPaths = new Map<string, Array<readonly string[] | undefined>>();
  private readonly computedSizes = new Map<bigint, Range>();

  /** `roots`: the declared variables by name, for environments with more than `self` (admission policies' `object`, `request` ...). */
  /** `has()`'s own cost: cel-go's default 1 until Kubernetes set `PresenceTestHasCost(false)`, then 0. */
  private readonly presenceTestCost: Range;

  constructor(
    private readonly ast: CheckedAst,
    private readonly root: CelType,
    private readonly roots: Readonly<Record<string, CelType>> | undefined,
    private readonly version: KubernetesVersion,
  ) {
    this.presenceTestCost = since(version, 'presenceTestFree') ? ZERO : range(SELECT_AND_IDENT_COST);
  }

  public cost(e: AstExpr | undefined): Range {
    if (!e) return ZERO;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return range(CONST_COST);
      case 'identExpr':
        return this.costIdent(e, k.value.name);
      case 'selectExpr':
        return this.costSelect(e, k.value.operand!, k.value.field, k.value.testOnly);
      case 'callExpr':
        return this.costCall(e, k.value.function, k.value.target, k.value.args);
      case 'listExpr':
        return add(sum(k.value.elements.map((x) => this.cost(x))), range(LIST_CREATE_BASE_COST));
      case 'structExpr': {
        let total = ZERO;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') total = add(total, this.cost(entry.keyKind.value as AstExpr));
          total = add(total, this.cost(entry.value));
        }
        return add(total, range(k.value.messageName ? STRUCT_CREATE_BASE_COST : MAP_CREATE_BASE_COST));
      }
      case 'comprehensionExpr':
        return this.costComprehension(e, k.value);
      default:
        return ZERO;
    }
  }

  /** `EstimateSize` of the apiextensions size estimator: the MaxElements of the schema node a path leads to. */
  public estimateSize(node: CostNode): Range | undefined {
    if (!node.path || node.path.length === 0) return undefined;
    let current: CelType | undefined = this.roots ? this.roots[node.path[0]] : this.root;
    for (const name of node.path.slice(1)) {
      if (!current) return undefined;
      switch (name) {
        case '@items':
        case '@values':
          current = current.kind === 'list' ? current.elem : current.kind === 'map' ? current.value : undefined;
          break;
        case '@keys':
          current = current.kind === 'map' ? current.key : undefined;
          break;
        default:
          current = current.kind === 'object' ? current.fields[name] : undefined;
      }
    }
    if (!current) return undefined;
    return range(0n, BigInt(current.maxSize ?? 0));
  }

  private typeOf(e: AstExpr): CelType {
    return this.ast.types.get(e.id) ?? DYN;
  }

  private costIdent(e: AstExpr, name: string): Range {
    const bound = this.boundPaths.get(name);
    const stack = this.iterRanges.get(name);
    if (bound && bound.length > 0) {
      const path = bound[bound.length - 1];
      if (path) this.exprPath.set(e.id, path);
    } else if (stack && stack.length > 0) {
      const iterRange = stack[stack.length - 1];
      const kind = this.ast.types.get(iterRange)?.kind;
      if (kind === 'list') this.exprPath.set(e.id, [...(this.exprPath.get(iterRange) ?? []), '@items']);
      else if (kind === 'map') this.exprPath.set(e.id, [...(this.exprPath.get(iterRange) ?? []), '@keys']);
    } else {
      this.exprPath.set(e.id, [name]);
    }
    return range(SELECT_AND_IDENT_COST);
  }

  private costSelect(e: AstExpr, operand: AstExpr, field: string, testOnly: boolean): Range {
    if (testOnly) {
      // has(): the operand, plus the presence test where the version charges it
      return add(this.presenceTestCost, this.cost(operand));
    }
    let total = this.cost(operand);
    const kind = this.typeOf(operand).kind;
    if (kind === 'map' || kind === 'object') total = add(total, range(SELECT_AND_IDENT_COST));
    this.exprPath.set(e.id, [...(this.exprPath.get(operand.id) ?? []), field]);
    return total;
  }

  private costCall(e: AstExpr, fn: string, target: AstExpr | undefined, args: readonly AstExpr[]): Range {
    const global = this.ast.globalNames.get(e.id);
    const name = global ?? fn;
    const member = global === undefined ? target : undefined;
    if (name === '__optChainSelect__' && member && args.length === 1) {
      // `a.?b.c` is cel-go's plain select `.c` on an optional value: the operand's cost, nothing for the selection
      return this.cost(member);
    }
    const twoVariable = this.ast.overloads.get(e.id)?.[0]?.startsWith('@twoVariable:');
    if (twoVariable && member) return this.costTwoVariable(e, fn, member, args);
    const argNodes: CostNode[] = [];
    const argCosts: Range[] = [];
    for (const arg of args) {
      argCosts.push(this.cost(arg));
      argNodes.push(this.node(arg));
    }
    const overloadIds = this.ast.overloads.get(e.id) ?? [];
    if (overloadIds.length === 0) return ZERO;
    let total = ZERO;
    let targetNode: CostNode | undefined;
    if (member) {
      total = add(total, this.cost(member));
      targetNode = this.node(member);
    }
    let fnCost = range(MAX_UINT64, 0n);
    let resultSize: Range | undefined;
    for (const overload of overloadIds) {
      const call = this.functionCost(name, overload, targetNode, argNodes, argCosts);
      fnCost = union(fnCost, call.cost);
      if (call.resultSize) resultSize = resultSize ? union(resultSize, call.resultSize) : call.resultSize;
      if (overload === 'index_list' && args.length > 0) {
        this.exprPath.set(e.id, [...(this.exprPath.get(args[0].id) ?? []), '@items']);
      }
      if (overload === 'index_map' && args.length > 0) {
        this.exprPath.set(e.id, [...(this.exprPath.get(args[0].id) ?? []), '@values']);
      }
    }
    if (resultSize) this.computedSizes.set(e.id, resultSize);
    return add(total, fnCost);
  }

  private costComprehension(
    e: AstExpr,
    v: Extract<AstExpr['exprKind'], { case: 'comprehensionExpr' }>['value'],
  ): Range {
    let total = add(this.cost(v.iterRange), this.cost(v.accuInit));
    const stack = this.iterRanges.get(v.iterVar) ?? [];
    this.iterRanges.set(v.iterVar, stack);
    stack.push(v.iterRange!.id);
    const loopCost = this.cost(v.loopCondition);
    const stepCost = this.cost(v.loopStep);
    stack.pop();
    total = add(total, this.cost(v.result));
    const rangeCount = this.sizeEstimate(this.node(v.iterRange!));
    // the result (of map, filter) is as large as the range; before cel-go v0.17 its size was unknown
    if (since(this.version, 'comprehensionResultSized')) this.computedSizes.set(e.id, rangeCount);
    return add(total, multiply(rangeCount, add(stepCost, loopCost)));
  }

  /**
   * A two-variable comprehension (`l.all(i, v, p)`, `m.transformMap(k, v, e)`…) as cel-go costs the comprehension its
   * macro builds: the range, then per element the loop condition (1) and step (the predicate or expression, and the
   * accumulating operation: 1); a transform's result is as large as its range. Over a list the second variable is an
   * element, over a map the first is a key and the second a value (their sizes come from the schema).
   */
  private costTwoVariable(e: AstExpr, fn: string, target: AstExpr, args: readonly AstExpr[]): Range {
    let total = this.cost(target);
    const targetNode = this.node(target);
    const base = this.exprPath.get(target.id);
    const names = args.slice(0, 2).map((a) => (a.exprKind.case === 'identExpr' ? a.exprKind.value.name : ''));
    const isMap = targetNode.type.kind === 'map';
    const paths: Array<readonly string[] | undefined> = base
      ? isMap
        ? [
            [...base, '@keys'],
            [...base, '@values'],
          ]
        : [undefined, [...base, '@items']]
      : [undefined, undefined];
    names.forEach((n, i) => this.boundPaths.set(n, [...(this.boundPaths.get(n) ?? []), paths[i]]));
    const bodyCost = sum(args.slice(2).map((a) => this.cost(a)));
    names.forEach((n) => this.boundPaths.get(n)!.pop());
    const rangeCount = this.sizeEstimate(targetNode);
    if (fn.startsWith('transform')) this.computedSizes.set(e.id, rangeCount);
    total = add(total, multiply(rangeCount, add(bodyCost, range(2n))));
    return total;
  }

  /** cel-go's `coster.sizeEstimate`: known size, else the schema's bound, else 1 for fixed-size scalars, else unbounded. */
  private sizeEstimate(node: CostNode): Range {
    if (node.computedSize) return node.computedSize;
    const estimated = this.estimateSize(node);
    if (estimated) return estimated;
    if (['bool', 'double', 'duration', 'int', 'timestamp', 'uint'].includes(node.type.kind)) return ONE;
    return UNKNOWN_SIZE;
  }

  private node(e: AstExpr): CostNode {
    let path = this.exprPath.get(e.id);
    // only paths from declared variables; accumulator variables have none
    if (path && path.length > 0 && ACCUMULATOR_NAMES.has(path[0])) path = undefined;
    return { path, type: this.typeOf(e), expr: e, computedSize: this.computedSizes.get(e.id) ?? literalSize(e) };
  }

  private functionCost(
    fn: string,
    overload: string,
    target: CostNode | undefined,
    args: CostNode[],
    argCosts: Range[],
  ): { cost: Range; resultSize?: Range } {
    const argSum = () => sum(argCosts);
    const sets = SETS_FACTORS[overload];
    if (sets !== undefined && args.length === 2) {
      const size = (n: CostNode) => n.computedSize ?? this.estimateSize(n) ?? UNKNOWN_SIZE;
      return { cost: add(add(multiplyByCostFactor(multiply(size(args[0]), size(args[1])), sets), ONE), argSum()) };
    }
    // the lists extension's range(n): as long as n, unknown unless a literal (cel-go's estimator for ListsVersion 3)
    if (overload === 'lists.range' && args.length === 1) {
      const literal =
        args[0].expr?.exprKind.case === 'constExpr' ? args[0].expr.exprKind.value.constantKind.value : undefined;
      const n = typeof literal === 'bigint' && literal >= 0n ? literal : MAX_UINT64;
      return { cost: add(range(n), argSum()), resultSize: range(n) };
    }
    const library = kubernetesCallCost(this, fn, overload, target, args, {
      libraryTypeEquality: since(this.version, 'libraryTypeEqualityCost'),
    });
    if (library) return { cost: add(library.cost, argSum()), resultSize: library.resultSize };
    const traversal = (n: CostNode) => multiplyByCostFactor(this.sizeEstimate(n), STRING_TRAVERSAL_COST_FACTOR);
    switch (overload) {
      // O(n) functions
      case 'string_format':
        if (target) return { cost: add(traversal(target), argSum()) };
        break;
      case 'string_to_bytes':
        if (args.length === 1) {
          const size = this.sizeEstimate(args[0]);
          return { cost: add(traversal(args[0]), argSum()), resultSize: range(size.min, mulU64(size.max, 4n)) };
        }
        break;
      case 'bytes_to_string':
        if (args.length === 1) {
          const size = this.sizeEstimate(args[0]);
          return { cost: add(traversal(args[0]), argSum()), resultSize: range(size.min / 4n, size.max) };
        }
        break;
      case 'strings_quote':
        if (args.length === 1) {
          const size = this.sizeEstimate(args[0]);
          return {
            cost: add(traversal(args[0]), argSum()),
            resultSize: range(size.min + 2n, mulU64(size.max, 2n) + 2n),
          };
        }
        break;
      case 'starts_with_string':
      case 'ends_with_string':
        if (args.length === 1) return { cost: add(traversal(args[0]), argSum()) };
        break;
      case 'in_list':
        // O(n) in the list's size, even for constant lists
        if (args.length === 2) return { cost: add(multiplyByCostFactor(this.sizeEstimate(args[1]), 1), argSum()) };
        break;
      // O(nm) functions
      case 'matches_string':
        if (target && args.length === 1) {
          // one more than the string length, so that an empty string with an expensive regex is not free
          const strCost = multiplyByCostFactor(add(this.sizeEstimate(target), ONE), STRING_TRAVERSAL_COST_FACTOR);
          const regexCost = multiplyByCostFactor(this.sizeEstimate(args[0]), REGEX_STRING_LENGTH_COST_FACTOR);
          return { cost: add(multiply(strCost, regexCost), argSum()) };
        }
        break;
      case 'contains_string':
        if (target && args.length === 1) {
          return { cost: add(multiply(traversal(target), traversal(args[0])), argSum()) };
        }
        break;
      case 'logical_or':
      case 'logical_and': {
        // short-circuit: at least the left operand
        const [lhs, rhs] = argCosts;
        return { cost: range(lhs.min, add(lhs, rhs).max) };
      }
      case 'conditional': {
        const size = union(this.sizeEstimate(args[1]), this.sizeEstimate(args[2]));
        return { cost: add(argCosts[0], union(argCosts[1], argCosts[2])), resultSize: size };
      }
      case 'add_string':
      case 'add_bytes':
      case 'add_list':
        if (args.length === 2) {
          const resultSize = add(this.sizeEstimate(args[0]), this.sizeEstimate(args[1]));
          if (overload === 'add_list') return { cost: add(ONE, argSum()), resultSize }; // O(1), sized for later use
          return { cost: add(multiplyByCostFactor(resultSize, STRING_TRAVERSAL_COST_FACTOR), argSum()), resultSize };
        }
        break;
      default:
        if (SIZE_COMPARED.has(overload)) {
          const lhs = this.sizeEstimate(args[0]);
          const rhs = this.sizeEstimate(args[1]);
          const smallestMax = rhs.max < lhs.max ? rhs.max : lhs.max;
          const min = smallestMax > 0n ? 1n : 0n;
          return { cost: add(multiplyByCostFactor(range(min, smallestMax), STRING_TRAVERSAL_COST_FACTOR), argSum()) };
        }
    }
    // O(1) functions
    return { cost: add(ONE, argSum()) };
  }
}

/** Overloads whose cost is the size of the smaller operand (string and bytes ordering, and equality). */
const SIZE_COMPARED = new Set([
  'less_string',
  'greater_string',
  'less_equals_string',
  'greater_equals_string',
  'less_bytes',
  'greater_bytes',
  'less_equals_bytes',
  'greater_equals_bytes',
  'equals',
  'not_equals',
]);

/** cel-go ext/sets.go: `estimateSetsCost(factor)`, registered as overload estimators (checked before the library's). */
const SETS_FACTORS: Readonly<Record<string, number>> = {
  list_sets_contains_list: 1,
  list_sets_intersects_list: 1,
  list_sets_equivalent_list: 2,
};

function mulU64(x: bigint, y: bigint): bigint {
  return multiply(range(x), range(y)).max;
}

/** `astNode.ComputedSize`: the exact size of constants and literals. */
function literalSize(e: AstExpr): Range | undefined {
  const k = e.exprKind;
  switch (k.case) {
    case 'constExpr': {
      const c = k.value.constantKind;
      switch (c.case) {
        case 'stringValue':
          return range(BigInt([...(c.value as string)].length));
        case 'bytesValue':
          return range(BigInt((c.value as Uint8Array).length));
        case 'boolValue':
        case 'doubleValue':
        case 'int64Value':
        case 'uint64Value':
        case 'nullValue':
          return ONE;
        default:
          return undefined;
      }
    }
    case 'listExpr':
      return range(BigInt(k.value.elements.length));
    case 'structExpr':
      return k.value.messageName ? undefined : range(BigInt(k.value.entries.length));
    default:
      return undefined;
  }
}
