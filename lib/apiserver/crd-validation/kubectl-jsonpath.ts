/**
 * The syntax of Kubernetes JSONPath templates (`k8s.io/client-go/util/jsonpath`, the dialect of
 * `kubectl get -o jsonpath=` and of CRD printer columns), as its parser accepts or refuses them.
 *
 * Why a parser of our own: the apiserver only checks that a printer column's `jsonPath` starts with a dot
 * and accepts the CRD; it parses the path later, when it builds the table of `kubectl get`, and when that
 * parse fails it silently drops the column and every column after it. Catching it at synth needs the same
 * grammar, quirks included (the parser is hand-written in Go; no npm library speaks this dialect).
 *
 * Only the verdict is computed (no syntax tree): the first error the Go parser would report, or undefined.
 * @internal
 */
export function jsonPathTemplateError(template: string): string | undefined {
  try {
    new TemplateScanner(template).scanText();
    return undefined;
  } catch (e) {
    if (e instanceof JsonPathSyntaxError) return e.message;
    throw e;
  }
}

/** The verdict on a printer column path, which the apiserver wraps in braces (`{` + jsonPath + `}`). @internal */
export function printerColumnJsonPathError(jsonPath: string): string | undefined {
  return jsonPathTemplateError(`{${jsonPath}}`);
}

class JsonPathSyntaxError extends Error {}

const EOF = '';
const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}_]$/u;
const DIGIT = /^\p{Nd}$/u;
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
/**
 * `left op right` inside `[?( … )]`, operators as the parser of Kubernetes 1.32 knows them (a later client-go adds
 * `=~`; clusters up to 1.32 drop a column that uses it); `[^\n]` because Go's `.` only excludes newlines.
 */
const FILTER_COMPARISON = /^([^!<>=]+)([!<>=]+)([^\n]+?)$/;

/** Walks the template as the Go parser does: `pos` is the read position, `start` the beginning of the current token. */
class TemplateScanner {
  private pos = 0;
  private start = 0;
  private width = 0;
  /** Whether the last node of the current action is `..`, for "invalid multiple recursive descent". */
  private lastWasRecursive = false;

  constructor(private readonly input: string) {}

  scanText(): void {
    for (;;) {
      if (this.input.startsWith('{', this.pos)) {
        this.pos += 1;
        this.start = this.pos;
        this.lastWasRecursive = false;
        this.scanAction();
        return;
      }
      if (this.next() === EOF) return;
    }
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const ch = String.fromCodePoint(this.input.codePointAt(this.pos)!);
    this.width = ch.length;
    this.pos += this.width;
    return ch;
  }

  private peek(): string {
    const ch = this.next();
    this.backup();
    return ch;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private consume(): string {
    const text = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return text;
  }

  private fail(message: string): never {
    throw new JsonPathSyntaxError(message);
  }

  /** Inside `{ … }`: one token, then the rest of the action (the Go parser recurses; a loop is the same). */
  private scanAction(): void {
    for (;;) {
      if (this.input.startsWith('}', this.pos)) {
        this.pos += 1;
        this.start = this.pos;
        this.scanText();
        return;
      }
      if (this.input.startsWith('[?(', this.pos)) {
        this.scanFilter();
        this.lastWasRecursive = false;
        continue;
      }
      if (this.input.startsWith('..', this.pos)) {
        this.scanRecursive();
        continue;
      }
      const r = this.next();
      if (r === EOF || r === '\r' || r === '\n') this.fail('unclosed action');
      // a space, `@` and `$` add no node: `.. ..` is still two recursive descents in a row
      if (r === ' ' || r === '@' || r === '$') {
        this.consume();
        continue;
      }
      this.lastWasRecursive = false;
      if (r === '[') {
        this.scanArray();
      } else if (r === '"' || r === "'") {
        this.scanQuote(r);
      } else if (r === '.') {
        this.scanField();
      } else if (r === '+' || r === '-' || DIGIT.test(r)) {
        this.backup();
        this.scanNumber();
      } else if (LETTER_OR_DIGIT.test(r)) {
        this.backup();
        this.scanIdentifier();
      } else {
        this.fail(`unrecognized character in action: ${goRuneLiteral(r)}`);
      }
    }
  }

  private scanRecursive(): void {
    if (this.lastWasRecursive) this.fail('invalid multiple recursive descent');
    this.pos += 2;
    this.consume();
    this.lastWasRecursive = true;
    if (LETTER_OR_DIGIT.test(this.peek())) {
      this.scanField();
      this.lastWasRecursive = false;
    }
  }

  private scanIdentifier(): void {
    while (!isTerminator(this.next())) {
      /* the identifier goes on */
    }
    this.backup();
    this.consume();
  }

  private scanNumber(): void {
    const sign = this.peek();
    if (sign === '+' || sign === '-') this.next();
    for (;;) {
      const r = this.next();
      if (r !== '.' && !DIGIT.test(r)) {
        this.backup();
        break;
      }
    }
    const text = this.consume();
    if (!isGoInt(text) && !isGoFloat(text)) this.fail(`cannot parse number ${text}`);
  }

  private scanArray(): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') this.fail('unterminated array');
      if (r === ']') break;
    }
    let text = this.consume().slice(1, -1);
    if (text === '*') text = ':';
    const union = text.split(',');
    if (union.length > 1) {
      for (const part of union) this.subAction(`[${part.replace(/^ +| +$/g, '')}]`);
      return;
    }
    const dictKey = DICT_KEY.exec(text);
    if (dictKey) {
      this.subAction(`.${dictKey[1]}`);
      return;
    }
    const slice = SLICE.exec(text);
    if (!slice) this.fail(`invalid array index ${text}`);
    for (const [i, part] of slice.slice(1, 4).entries()) {
      if (!part) continue;
      const digits = i > 0 ? part.slice(1) : part;
      if (digits !== '' && !isGoInt(digits)) this.fail(`array index ${digits} is not a number`);
    }
  }

  private scanFilter(): void {
    this.pos += 3;
    this.consume();
    let inQuote = false;
    let quoteClosed = false;
    let quote = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') this.fail('unterminated filter');
      if (r === '"' || r === "'") {
        if (!inQuote) {
          inQuote = true;
          quote = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === quote) quoteClosed = true;
      } else if (r === ')' && inQuote === quoteClosed) {
        break;
      }
    }
    if (this.next() !== ']') this.fail('unclosed array expect ]');
    const text = this.consume().slice(0, -2);
    const comparison = FILTER_COMPARISON.exec(text);
    if (!comparison) {
      this.subAction(text);
      return;
    }
    this.subAction(comparison[1]);
    this.subAction(comparison[3]);
  }

  private scanQuote(end: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') this.fail('unterminated quoted string');
      if (r === end && this.input[this.pos - 2] !== '\\') break;
    }
    const text = this.consume();
    if (!isGoQuoted(text)) this.fail(`unquote string ${text} error invalid syntax`);
  }

  private scanField(): void {
    this.consume();
    for (;;) {
      const r = this.next();
      if (r === '\\') {
        this.next();
        continue;
      }
      if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    this.consume();
  }

  /** The Go parser parses unions, dict keys and filter operands as templates of their own (`{` + text + `}`). */
  private subAction(text: string): void {
    new TemplateScanner(`{${text}}`).scanText();
  }
}

function isTerminator(r: string): boolean {
  return r === EOF || ' \t\r\n.,[]$@{}'.includes(r);
}

/** `strconv.Atoi`: an optional sign and decimal digits that fit in 64 bits. */
function isGoInt(text: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(text)) return false;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/**
 * `strconv.ParseFloat` restricted to what a number token can hold (sign, digits, dots): one dot at most,
 * one digit at least, and no overflow (Go reports out-of-range as an error).
 */
function isGoFloat(text: string): boolean {
  return /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(text) && Number.isFinite(Number(text));
}

/**
 * `UnquoteExtend` (`strconv.Unquote` that also takes single quotes): Go escapes only, and the quote
 * character itself only when escaped.
 */
function isGoQuoted(text: string): boolean {
  if (text.length < 2) return false;
  const quote = text[0];
  if (text[text.length - 1] !== quote || (quote !== '"' && quote !== "'")) return false;
  const body = text.slice(1, -1);
  const other = quote === '"' ? "'" : '"';
  for (let i = 0; i < body.length;) {
    const c = body[i];
    if (c === quote) return false;
    if (c !== '\\') {
      i += 1;
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return false;
    if ('abfnrtv\\'.includes(e) || e === quote) {
      i += 2;
      continue;
    }
    if (e === other) return false;
    const hexDigits = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
    if (hexDigits > 0) {
      const hex = body.slice(i + 2, i + 2 + hexDigits);
      if (!new RegExp(`^[0-9a-fA-F]{${hexDigits}}$`).test(hex)) return false;
      const v = parseInt(hex, 16);
      if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))) return false;
      i += 2 + hexDigits;
      continue;
    }
    if (/[0-7]/.test(e)) {
      const octal = body.slice(i + 1, i + 4);
      if (!/^[0-7]{3}$/.test(octal) || parseInt(octal, 8) > 255) return false;
      i += 4;
      continue;
    }
    return false;
  }
  return true;
}

/** Go's `%#U`: `U+007B '{'`, without the quoted character when it is not printable. */
function goRuneLiteral(r: string): string {
  const code = `U+${r.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(r) ? `${code} '${r}'` : code;
}
