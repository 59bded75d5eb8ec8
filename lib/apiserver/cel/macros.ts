/**
 * Macros the local parser leaves as plain calls, expanded into the comprehensions cel-go builds:
 * - `cel.bind(x, init, body)`: a comprehension over an empty list whose accumulator `x` is `init`;
 * - two-variable comprehensions (cel-go's ext.TwoVarComprehensions): `all`, `exists`, `existsOne`/`exists_one`
 *   with `(k, v, pred)`, `transformList(i, v, [filter,] expr)`, `transformMap(k, v, [filter,] expr)`,
 *   `transformMapEntry(k, v, [filter,] expr)`. The local evaluator has no second iteration variable,
 *   so these iterate over `@pairs(x)` (`[key or index, value]` pairs) and bind both names from the pair.
 * Only the evaluator expands two-variable calls; the type checker refuses them in CRD rules, like kube-apiserver 1.32,
 * whose CRD environment does not include them.
 */

interface Node {
  $typeName?: string;
  id: bigint;
  exprKind: { case: string | undefined; value?: any };
}

/** The macro names of two-variable comprehensions. */
export const TWO_VARIABLE_MACROS = new Set([
  'all',
  'exists',
  'existsOne',
  'exists_one',
  'transformList',
  'transformMap',
  'transformMapEntry',
]);

/** Whether a call is a two-variable comprehension (`target.name(ident, ident, …)`). */
export function isTwoVariableCall(
  name: string,
  target: unknown,
  args: readonly { exprKind: { case: string | undefined } }[],
): boolean {
  return (
    target !== undefined &&
    TWO_VARIABLE_MACROS.has(name) &&
    args.length >= 3 &&
    args.length <= 4 &&
    args[0].exprKind.case === 'identExpr' &&
    args[1].exprKind.case === 'identExpr' &&
    (args.length === 3 || name.startsWith('transform'))
  );
}

/** Expands the macros in place. */
export function expandMacros(root: Node, options: { twoVariable: boolean }): void {
  let nextId = maxId(root) + 1n;
  const b = new Builder(() => nextId++);
  const visit = (e: Node | undefined): void => {
    if (!e || typeof e !== 'object') return;
    forEachChild(e, visit); // children first, so nested macros are expanded before being moved
    const k = e.exprKind;
    if (k.case !== 'callExpr') return;
    const { target, function: fn, args } = k.value;
    if (
      fn === 'bind' &&
      target?.exprKind.case === 'identExpr' &&
      target.exprKind.value.name === 'cel' &&
      args.length === 3 &&
      args[0].exprKind.case === 'identExpr'
    ) {
      e.exprKind = b.bind(args[0].exprKind.value.name, args[1], args[2]).exprKind;
    } else if (
      options.twoVariable &&
      fn === 'sortBy' &&
      target &&
      args.length === 2 &&
      args[0].exprKind.case === 'identExpr'
    ) {
      e.exprKind = b.sortBy(target, args[0].exprKind.value.name, args[1]).exprKind;
    } else if (options.twoVariable && isTwoVariableCall(fn, target, args)) {
      e.exprKind = b.twoVariable(
        fn,
        target,
        args[0].exprKind.value.name,
        args[1].exprKind.value.name,
        args.slice(2),
      ).exprKind;
    }
  };
  visit(root);
}

const ACCU = '@result';
const PAIR = '@pair';

class Builder {
  constructor(private readonly id: () => bigint) {}

  public bind(variable: string, init: Node, body: Node): Node {
    return this.comprehension({
      iterVar: '#unused',
      iterRange: this.list([]),
      accuVar: variable,
      accuInit: init,
      loopCondition: this.bool(false),
      loopStep: this.ident(variable),
      result: body,
    });
  }

  /** The lists extension's `l.sortBy(x, key)`: `@sortByAssociatedKeys(l, l.map(x, key))`, the list bound once. */
  public sortBy(target: Node, variable: string, key: Node): Node {
    const list = '@sortTarget';
    const keys = this.comprehension({
      iterVar: variable,
      iterRange: this.ident(list),
      accuVar: ACCU,
      accuInit: this.list([]),
      loopCondition: this.bool(true),
      loopStep: this.call('_+_', [this.ident(ACCU), this.list([key])]),
      result: this.ident(ACCU),
    });
    return this.bind(list, target, this.call('@sortByAssociatedKeys', [this.ident(list), keys]));
  }

  public twoVariable(fn: string, target: Node, k: string, v: string, rest: Node[]): Node {
    const range = this.call('@pairs', [target]);
    // `k` and `v` bound from the current pair around an expression
    const bound = (body: Node): Node =>
      this.bind(k, this.index(this.ident(PAIR), 0n), this.bind(v, this.index(this.ident(PAIR), 1n), body));
    const fold = (init: Node, loopCondition: Node, loopStep: Node, result: Node) =>
      this.comprehension({
        iterVar: PAIR,
        iterRange: range,
        accuVar: ACCU,
        accuInit: init,
        loopCondition,
        loopStep,
        result,
      });
    switch (fn) {
      case 'all':
        return fold(
          this.bool(true),
          this.call('@not_strictly_false', [this.ident(ACCU)]),
          this.call('_&&_', [this.ident(ACCU), bound(rest[0])]),
          this.ident(ACCU),
        );
      case 'exists':
        return fold(
          this.bool(false),
          this.call('@not_strictly_false', [this.call('!_', [this.ident(ACCU)])]),
          this.call('_||_', [this.ident(ACCU), bound(rest[0])]),
          this.ident(ACCU),
        );
      case 'existsOne':
      case 'exists_one':
        return fold(
          this.int(0n),
          this.bool(true),
          this.call('_?_:_', [bound(rest[0]), this.call('_+_', [this.ident(ACCU), this.int(1n)]), this.ident(ACCU)]),
          this.call('_==_', [this.ident(ACCU), this.int(1n)]),
        );
    }
    // transformList / transformMap / transformMapEntry: collect per pair, then shape the result
    const [filter, expr] = rest.length === 2 ? rest : [undefined, rest[0]];
    const element =
      fn === 'transformList'
        ? bound(expr)
        : fn === 'transformMap'
          ? this.list([this.index(this.ident(PAIR), 0n), bound(expr)])
          : bound(expr);
    const append = this.call('_+_', [this.ident(ACCU), this.list([element])]);
    const step = filter ? this.call('_?_:_', [bound(filter), append, this.ident(ACCU)]) : append;
    const collected = fold(this.list([]), this.bool(true), step, this.ident(ACCU));
    if (fn === 'transformList') return collected;
    return this.call(fn === 'transformMap' ? '@pairsToMap' : '@mergeMaps', [collected]);
  }

  private comprehension(value: Record<string, unknown>): Node {
    return this.node('comprehensionExpr', { $typeName: 'cel.expr.Expr.Comprehension', iterVar2: '', ...value });
  }

  private call(fn: string, args: Node[]): Node {
    return this.node('callExpr', { $typeName: 'cel.expr.Expr.Call', function: fn, args });
  }

  private index(on: Node, i: bigint): Node {
    return this.call('_[_]', [on, this.int(i)]);
  }

  private list(elements: Node[]): Node {
    return this.node('listExpr', { $typeName: 'cel.expr.Expr.CreateList', elements, optionalIndices: [] });
  }

  private ident(name: string): Node {
    return this.node('identExpr', { $typeName: 'cel.expr.Expr.Ident', name });
  }

  private bool(value: boolean): Node {
    return this.node('constExpr', { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value } });
  }

  private int(value: bigint): Node {
    return this.node('constExpr', { $typeName: 'cel.expr.Constant', constantKind: { case: 'int64Value', value } });
  }

  private node(kind: string, value: unknown): Node {
    return { $typeName: 'cel.expr.Expr', id: this.id(), exprKind: { case: kind, value } };
  }
}

function forEachChild(e: Node, visit: (child: Node) => void): void {
  const value = e.exprKind.value;
  if (!value || typeof value !== 'object') return;
  for (const child of Object.values(value)) {
    if (Array.isArray(child)) {
      for (const c of child) {
        if (isNode(c)) visit(c);
        else if (isNode(c?.value)) visit(c.value); // struct entries
        if (c?.keyKind?.case === 'mapKey' && isNode(c.keyKind.value)) visit(c.keyKind.value);
      }
    } else if (isNode(child)) {
      visit(child);
    }
  }
}

function maxId(e: Node): bigint {
  let max = BigInt(e.id ?? 0);
  forEachChild(e, (c) => {
    const m = maxId(c);
    if (m > max) max = m;
  });
  return max;
}

function isNode(x: unknown): x is Node {
  return typeof x === 'object' && x !== null && 'exprKind' in x;
}
