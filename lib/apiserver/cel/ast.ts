import { parse } from '@bufbuild/cel';
import { expandMacros } from './macros';

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
 * Macros the parser leaves as calls are expanded (see `macros.ts`): always `cel.bind`, and with
 * `twoVariable` the two-variable comprehensions (which the evaluator needs expanded).
 */
export function parseRule(source: string, options: { twoVariable?: boolean } = {}): { parsed: ParsedRule; root: AstExpr; positions: Record<string, number> } {
  const parsed = parse(source);
  expandMacros(parsed.expr as never, { twoVariable: options.twoVariable ?? false });
  const positions: Record<string, number> = {};
  for (const [id, pos] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = Number(pos);
  return { parsed, root: parsed.expr as unknown as AstExpr, positions };
}

/** `line:column` (both 1-based) of a character offset, as cel-go prints locations. */
export function location(source: string, offset: number | undefined): string {
  if (offset === undefined) return '1:1';
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `${line}:${column}`;
}
