import { parse } from '@bufbuild/cel';

/** The parsed-expression shape produced by `@bufbuild/cel`'s `parse()` (cel.expr.Expr), narrowed to what we read. */
export type ParsedRule = ReturnType<typeof parse>;

export interface AstExpr {
  readonly id: bigint;
  readonly exprKind:
  | { readonly case: 'constExpr'; readonly value: { readonly constantKind: { readonly case: string | undefined; readonly value?: unknown } } }
  | { readonly case: 'identExpr'; readonly value: { readonly name: string } }
  | { readonly case: 'selectExpr'; readonly value: { readonly operand?: AstExpr; readonly field: string; readonly testOnly: boolean } }
  | { readonly case: 'callExpr'; readonly value: { readonly target?: AstExpr; readonly function: string; readonly args: readonly AstExpr[] } }
  | { readonly case: 'listExpr'; readonly value: { readonly elements: readonly AstExpr[] } }
  | {
    readonly case: 'structExpr';
    readonly value: {
      readonly messageName: string;
      readonly entries: readonly { readonly keyKind: { readonly case: string | undefined; readonly value?: unknown }; readonly value?: AstExpr }[];
    };
  }
  | {
    readonly case: 'comprehensionExpr';
    readonly value: {
      readonly iterVar: string;
      readonly iterVar2?: string;
      readonly iterRange?: AstExpr;
      readonly accuVar: string;
      readonly accuInit?: AstExpr;
      readonly loopCondition?: AstExpr;
      readonly loopStep?: AstExpr;
      readonly result?: AstExpr;
    };
  }
  | { readonly case: undefined; readonly value?: undefined };
}

/**
 * Parses a rule; throws the parser's message (`<input>:1:8: found + but expecting …`).
 * `cel.bind(x, init, body)`, a macro the local parser does not expand, is expanded here the way
 * cel-go does: a comprehension over an empty list whose accumulator `x` starts as `init`.
 */
export function parseRule(source: string): { parsed: ParsedRule; root: AstExpr; positions: Record<string, number> } {
  const parsed = parse(source);
  expandBindMacros(parsed.expr as unknown as MutableExpr);
  const positions: Record<string, number> = {};
  for (const [id, pos] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = Number(pos);
  return { parsed, root: parsed.expr as unknown as AstExpr, positions };
}

interface MutableExpr { id: bigint; exprKind: { case: string | undefined; value?: any } }

function expandBindMacros(e: MutableExpr | undefined): void {
  if (!e || typeof e !== 'object') return;
  const k = e.exprKind;
  if (k.case === 'callExpr') {
    const { target, function: fn, args } = k.value;
    if (fn === 'bind' && target?.exprKind.case === 'identExpr' && target.exprKind.value.name === 'cel'
      && args.length === 3 && args[0].exprKind.case === 'identExpr') {
      const variable: string = args[0].exprKind.value.name;
      e.exprKind = {
        case: 'comprehensionExpr',
        value: {
          $typeName: 'cel.expr.Expr.Comprehension',
          iterVar: '#unused',
          iterVar2: '',
          iterRange: { $typeName: 'cel.expr.Expr', id: args[0].id, exprKind: { case: 'listExpr', value: { $typeName: 'cel.expr.Expr.CreateList', elements: [], optionalIndices: [] } } },
          accuVar: variable,
          accuInit: args[1],
          loopCondition: { $typeName: 'cel.expr.Expr', id: args[0].id, exprKind: { case: 'constExpr', value: { $typeName: 'cel.expr.Constant', constantKind: { case: 'boolValue', value: false } } } },
          loopStep: { $typeName: 'cel.expr.Expr', id: args[0].id, exprKind: { case: 'identExpr', value: { $typeName: 'cel.expr.Expr.Ident', name: variable } } },
          result: args[2],
        },
      };
    }
  }
  // recurse into every child expression
  const value = e.exprKind.value;
  if (!value || typeof value !== 'object') return;
  for (const child of Object.values(value)) {
    if (Array.isArray(child)) child.forEach(c => (isExpr(c) ? expandBindMacros(c) : isExpr(c?.value) && expandBindMacros(c.value)));
    else if (isExpr(child)) expandBindMacros(child);
  }
  if (e.exprKind.case === 'structExpr') {
    for (const entry of value.entries ?? []) if (entry.keyKind?.case === 'mapKey') expandBindMacros(entry.keyKind.value);
  }
}

function isExpr(x: unknown): x is MutableExpr {
  return typeof x === 'object' && x !== null && 'exprKind' in x;
}

/** `line:column` (both 1-based) of a character offset, as cel-go prints locations. */
export function location(source: string, offset: number | undefined): string {
  if (offset === undefined) return '1:1';
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `${line}:${column}`;
}
