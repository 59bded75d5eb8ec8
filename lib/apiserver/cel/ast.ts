import { parse } from '@bufbuild/cel';
import { expandMacros } from './macros';

/** The parsed-expression shape produced by `@bufbuild/cel`'s `parse()` (cel.expr.Expr), narrowed to what we read. */
export type ParsedRule = ReturnType<typeof parse>;

export interface AstExpr {
  readonly id: bigint;
  readonly exprKind:
    | {
        readonly case: 'constExpr';
        readonly value: { readonly constantKind: { readonly case: string | undefined; readonly value?: unknown } };
      }
    | { readonly case: 'identExpr'; readonly value: { readonly name: string } }
    | {
        readonly case: 'selectExpr';
        readonly value: { readonly operand?: AstExpr; readonly field: string; readonly testOnly: boolean };
      }
    | {
        readonly case: 'callExpr';
        readonly value: { readonly target?: AstExpr; readonly function: string; readonly args: readonly AstExpr[] };
      }
    | { readonly case: 'listExpr'; readonly value: { readonly elements: readonly AstExpr[] } }
    | {
        readonly case: 'structExpr';
        readonly value: {
          readonly messageName: string;
          readonly entries: readonly {
            readonly keyKind: { readonly case: string | undefined; readonly value?: unknown };
            readonly value?: AstExpr;
          }[];
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
 * The local parser's lexical rules are brought to cel-go's first (`scanLiterals`): a `//` comment may end the input,
 * an unknown escape is a token error, a `\u` escape of a surrogate or beyond Unicode is kept (as U+FFFD, what older
 * cel-go stores for a surrogate in a string) and reported in `badCodePoints`, and number literals out of range are reported in
 * `literalErrors` (cel-go's parser refuses them: `invalid int literal`, `invalid double literal`).
 */
export function parseRule(source: string, options: { twoVariable?: boolean } = {}): ParsedSource {
  const scanned = scanLiterals(source);
  if (scanned.badEscape) {
    throw new Error(
      `<input>:${location(source, scanned.badEscape.at)}: token recognition error at: '${scanned.badEscape.text}'`,
    );
  }
  let parsed: ParsedRule;
  try {
    parsed = parse(scanned.text);
  } catch (e) {
    // a `//` comment that ends the input without a newline, which cel-go's lexer accepts and the local one does not
    try {
      parsed = parse(`${scanned.text}\n`);
    } catch {
      throw e;
    }
  }
  expandMacros(parsed.expr as never, { twoVariable: options.twoVariable ?? false });
  const positions: Record<string, number> = {};
  for (const [id, pos] of Object.entries(parsed.sourceInfo?.positions ?? {})) positions[id] = Number(pos);
  const root = parsed.expr as unknown as AstExpr;
  return {
    parsed,
    root,
    positions,
    badCodePoints: scanned.badCodePoints,
    literalErrors: outOfRangeLiterals(root, positions),
  };
}

export interface ParsedSource {
  readonly parsed: ParsedRule;
  readonly root: AstExpr;
  readonly positions: Record<string, number>;
  /**
   * String and bytes literals holding a `\u`/`\U` escape of a surrogate or of a code point beyond U+10FFFF (the
   * local parser took them as U+FFFD): where the literal starts, and what is wrong.
   */
  readonly badCodePoints: readonly BadCodePoint[];
  /** cel-go's parser errors on literals the local parser takes: integers out of the 64-bit range. */
  readonly literalErrors: ReadonlyArray<{ readonly at: number; readonly message: string }>;
}

export interface BadCodePoint {
  readonly at: number;
  readonly literal: 'string' | 'bytes';
  readonly problem: 'surrogate' | 'beyondUnicode';
}

const ESCAPES = new Set(['a', 'b', 'f', 'n', 'r', 't', 'v', '\\', "'", '"', '`', '?']);

/**
 * cel-go's escape rules in (non-raw) string and bytes literals: `\a \b \f \n \r \t \v \\ \' \" \` \?`, `\xHH`,
 * `\uHHHH`, `\UHHHHHHHH` and three octal digits; anything else is a token recognition error from the literal's
 * start to the bad escape. Escapes of surrogates or of code points beyond U+10FFFF are replaced by U+FFFD (same
 * length, positions kept) and reported.
 */
function scanLiterals(source: string): {
  text: string;
  badCodePoints: BadCodePoint[];
  badEscape?: { at: number; text: string };
} {
  if (!source.includes('\\')) return { text: source, badCodePoints: [] };
  let text = source;
  const badCodePoints: BadCodePoint[] = [];
  for (let i = 0; i < source.length;) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') {
      const eol = source.indexOf('\n', i);
      i = eol < 0 ? source.length : eol;
      continue;
    }
    const m = /^([rRbB]{0,2})('\'\'\'|"""|'|")/.exec(source.slice(i));
    if (!m || (m[1] !== '' && i > 0 && /\w/.test(source[i - 1]))) {
      i++;
      continue;
    }
    const start = i;
    const quote = m[2];
    const raw = /r/i.test(m[1]);
    const bytes = /b/i.test(m[1]);
    let j = i + m[0].length;
    while (j < source.length && !source.startsWith(quote, j)) {
      if (raw || source[j] !== '\\') {
        j++;
        continue;
      }
      const e = source[j + 1];
      let width = 2;
      if (e === 'x' || e === 'X') {
        width = /^[0-9a-fA-F]{2}$/.test(source.slice(j + 2, j + 4)) ? 4 : 0;
      } else if (e === 'u' || e === 'U') {
        const n = e === 'u' ? 4 : 8;
        const hex = source.slice(j + 2, j + 2 + n);
        width = new RegExp(`^[0-9a-fA-F]{${n}}$`).test(hex) ? 2 + n : 0;
        const code = width ? parseInt(hex, 16) : 0;
        const problem = !width
          ? undefined
          : code >= 0xd800 && code <= 0xdfff
            ? 'surrogate'
            : code > 0x10ffff
              ? 'beyondUnicode'
              : undefined;
        if (problem) {
          if (!badCodePoints.some((b) => b.at === start)) {
            badCodePoints.push({ at: start, literal: bytes ? 'bytes' : 'string', problem });
          }
          text = `${text.slice(0, j)}${e === 'u' ? '\\uFFFD' : '\\U0000FFFD'}${text.slice(j + width)}`;
        }
      } else if (/[0-3]/.test(e ?? '')) {
        width = /^[0-7]{2}$/.test(source.slice(j + 2, j + 4)) ? 4 : 0;
      } else if (!ESCAPES.has(e)) {
        width = 0;
      }
      if (width === 0) return { text, badCodePoints, badEscape: { at: start, text: source.slice(start, j + 2) } };
      j += width;
    }
    i = j + quote.length;
  }
  return { text, badCodePoints };
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Integer literals outside int64 (uint64 for `u` literals): `invalid int literal` / `invalid uint literal` at the literal. */
function outOfRangeLiterals(root: AstExpr, positions: Record<string, number>): Array<{ at: number; message: string }> {
  const found: Array<{ at: number; message: string }> = [];
  const visit = (e: AstExpr | undefined): void => {
    if (!e) return;
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const { case: kind, value } = k.value.constantKind;
        if (kind === 'int64Value' && (BigInt(value as bigint) < INT64_MIN || BigInt(value as bigint) > INT64_MAX)) {
          found.push({ at: positions[e.id.toString()] ?? 0, message: 'invalid int literal' });
        }
        if (kind === 'uint64Value' && BigInt(value as bigint) > UINT64_MAX) {
          found.push({ at: positions[e.id.toString()] ?? 0, message: 'invalid uint literal' });
        }
        if (kind === 'doubleValue' && !Number.isFinite(value as number)) {
          found.push({ at: positions[e.id.toString()] ?? 0, message: 'invalid double literal' });
        }
        return;
      }
      case 'selectExpr':
        return visit(k.value.operand);
      case 'callExpr':
        visit(k.value.target);
        k.value.args.forEach(visit);
        return;
      case 'listExpr':
        return k.value.elements.forEach(visit);
      case 'structExpr':
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') visit(entry.keyKind.value as AstExpr);
          visit(entry.value);
        }
        return;
      case 'comprehensionExpr':
        [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result].forEach(visit);
        return;
    }
  };
  visit(root);
  return found.sort((a, b) => a.at - b.at);
}

/** `line:column` (both 1-based) of a character offset, as cel-go prints locations. */
export function location(source: string, offset: number | undefined): string {
  if (offset === undefined) return '1:1';
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `${line}:${column}`;
}
