/**
 * The local parser lacks CEL's optional syntax, so it is rewritten into method calls the local
 * checker and runtime understand before parsing:
 * - `x.?field` → `x.__optSelect__('field')` (an optional: none when the field is absent);
 * - `x[?key]`  → `x.__optIndex__(key)`;
 * - `Msg{?f: v}` (an optional field of a message literal) → `Msg{__opt__f: v}`;
 * - `[?a, b]` (a list literal with optional elements) → `__optList__([a, b], [0])`: the elements and the indices of the
 *   optional ones, whose value is included only when present;
 * - a plain `.field` that follows one of these in the same chain → `.__optChainSelect__('field')`,
 *   since selecting on an optional propagates the optional (a plain selection for cel-go, which the cost
 *   estimator charges as such).
 * Text inside string literals is left alone. Positions in the rewritten text map back with `rewriteOptionalSyntaxMapped`.
 */
export function rewriteOptionalSyntax(source: string): string {
  return rewriteOptionalSyntaxMapped(source).text;
}

/** The rewritten text and where each of its offsets comes from in `source` (a rewritten call: the syntax it replaces). */
export function rewriteOptionalSyntaxMapped(source: string): { text: string; toSource: (offset: number) => number } {
  if (!source.includes('.?') && !source.includes('[?') && !OPTIONAL_FIELD.test(source)) {
    return { text: source, toSource: (o) => o };
  }
  // [offset in the output, offset in the source, whether the output copies the source from there on]
  const anchors: Array<[number, number, boolean]> = [];
  const mark = (copied: boolean) => anchors.push([out.length, i, copied]);
  const nested = (text: string, at: number) => {
    const inner = rewriteOptionalSyntaxMapped(text);
    const base = out.length;
    for (let k = 0; k < inner.text.length; k++) anchors.push([base + k, at + inner.toSource(k), false]);
    return inner.text;
  };
  let out = '';
  let i = 0;
  let chainIsOptional = false;
  while (i < source.length) {
    const literal = stringLiteralAt(source, i);
    if (literal > i) {
      mark(true);
      out += source.slice(i, literal);
      i = literal;
      chainIsOptional = false;
      continue;
    }
    const select = /^\.(\?)?\s*([_a-zA-Z][_a-zA-Z0-9]*)/.exec(source.slice(i));
    if (select) {
      const isCall = /^\s*\(/.test(source.slice(i + select[0].length));
      if (select[1] || (chainIsOptional && !isCall)) {
        mark(false);
        out += select[1] ? `.__optSelect__('${select[2]}')` : `.__optChainSelect__('${select[2]}')`;
        chainIsOptional = true;
      } else {
        mark(true);
        out += select[0];
        chainIsOptional = false;
      }
      i += select[0].length;
      continue;
    }
    if (source[i] === '[' && !/[\w\])}]\s*$/.test(out)) {
      // a list literal: rewritten only when an element is optional
      const end = matchingBracket(source, i);
      const elements = splitTopLevel(source.slice(i + 1, end));
      const optional = elements.map((el, k) => (/^\s*\?/.test(el) ? k : -1)).filter((k) => k >= 0);
      if (optional.length > 0) {
        mark(false);
        out += '__optList__([';
        let at = i + 1;
        elements.forEach((el, k) => {
          if (k > 0) out += ',';
          const bare = el.replace(/^(\s*)\?/, '$1 ');
          out += nested(bare, at);
          at += el.length + 1;
        });
        mark(false);
        out += `], [${optional.join(', ')}])`;
        i = end + 1;
        chainIsOptional = false;
        continue;
      }
    }
    if (source.startsWith('[?', i)) {
      const end = matchingBracket(source, i);
      mark(false);
      out += '.__optIndex__(';
      out += nested(source.slice(i + 2, end), i + 2);
      i = end;
      mark(false);
      out += ')';
      i = end + 1;
      chainIsOptional = true;
      continue;
    }
    const field =
      source[i] === '?' && /[{,]\s*$/.test(out) ? /^\?\s*([_a-zA-Z][_a-zA-Z0-9]*)(?=\s*:)/.exec(source.slice(i)) : null;
    if (field) {
      mark(false);
      out += `${OPTIONAL_FIELD_PREFIX}${field[1]}`;
      i += field[0].length;
      continue;
    }
    const c = source[i];
    // an optional chain goes on through selections, index expressions and calls; anything else ends it
    if (!/[\w\])]/.test(c)) chainIsOptional = false;
    mark(true);
    out += c;
    i++;
  }
  const toSource = (offset: number): number => {
    let lo = 0;
    let hi = anchors.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (anchors[mid][0] <= offset) lo = mid;
      else hi = mid - 1;
    }
    const [from, to, copied] = anchors[lo] ?? [0, 0, false];
    return copied ? to + offset - from : to;
  };
  return { text: out, toSource };
}

/** A message literal's optional field (`Msg{?f: optional.of(x)}`), which the local parser lacks: the field is renamed. */
const OPTIONAL_FIELD = /[{,]\s*\?\s*[_a-zA-Z][_a-zA-Z0-9]*\s*:/;
export const OPTIONAL_FIELD_PREFIX = '__opt__';

/** The index just after a string literal starting at `i` (`'…'`, `"…"`, triple-quoted, raw), or `i` when none starts there. */
function stringLiteralAt(s: string, i: number): number {
  const m = /^([rRbB]{0,2})('''|"""|'|")/.exec(s.slice(i));
  if (!m || (m[1] === '' && !/['"]/.test(s[i]))) return i;
  if (i > 0 && /[\w]/.test(s[i - 1]) && m[1] !== '') return i; // an identifier ending in r/b, not a prefix
  const quote = m[2];
  const raw = /r/i.test(m[1]);
  let j = i + m[0].length;
  while (j < s.length) {
    if (!raw && s[j] === '\\') {
      j += 2;
      continue;
    }
    if (s.startsWith(quote, j)) return j + quote.length;
    j++;
  }
  return s.length;
}

/** The top-level comma-separated parts of a list literal's content (nested brackets and strings kept whole). */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let j = 0; j < s.length;) {
    const literal = stringLiteralAt(s, j);
    if (literal > j) {
      j = literal;
      continue;
    }
    if ('([{'.includes(s[j])) {
      depth++;
    } else if (')]}'.includes(s[j])) {
      depth--;
    } else if (s[j] === ',' && depth === 0) {
      parts.push(s.slice(start, j));
      start = j + 1;
    }
    j++;
  }
  if (s.slice(start).trim() !== '' || parts.length > 0) parts.push(s.slice(start));
  return parts;
}

/** The index of the `]` closing the `[` at `open`, skipping nested brackets and strings. */
function matchingBracket(s: string, open: number): number {
  let depth = 0;
  for (let j = open; j < s.length;) {
    const literal = stringLiteralAt(s, j);
    if (literal > j) {
      j = literal;
      continue;
    }
    if (s[j] === '[') depth++;
    if (s[j] === ']' && --depth === 0) return j;
    j++;
  }
  return s.length;
}
