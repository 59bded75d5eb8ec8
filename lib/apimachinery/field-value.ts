import { KubernetesVersion, since } from './kubernetes-versions';

/**
 * A bad value as the apiserver prints it in a field error (`field.Error.ErrorBody` of
 * k8s.io/apimachinery/pkg/util/validation/field), for a value decoded from JSON: strings with Go's `%q`, int64 and
 * float64 with `%v`, booleans bare; lists, objects and null with Go's `%#v` (`[]interface {}{"a"}`,
 * `map[string]interface {}{"k":1}`, `"null"`) up to 1.33, as JSON (`["a"]`, `{"k":1}`, `null`) from 1.34
 * (kubernetes/kubernetes#132314, measured on 1.32 and 1.36).
 *
 * @internal
 */
export function fieldValue(value: unknown, version: KubernetesVersion): string {
  if (value === null || value === undefined) return since(version, 'fieldValuesAsJson') ? 'null' : '"null"';
  switch (typeof value) {
    case 'string':
      return goQuote(value);
    case 'number':
      return goNumber(value);
    case 'boolean':
      return String(value);
    default:
      return since(version, 'fieldValuesAsJson') ? goJson(value) : goSharpV(value);
  }
}

/** `Type: value` of an error, or `Type` alone for an omitted value (`field.OmitValueType`). @internal */
export function withValue(type: string, value: unknown, version: KubernetesVersion, omit = false): string {
  return omit ? type : `${type}: ${fieldValue(value, version)}`;
}

/**
 * A decoded JSON number as Go prints it (`%v`): an int64 when the JSON text is an integer that fits (as
 * k8s.io/apimachinery's JSON decoder makes it), else a float64 with Go's shortest `%g` (`0.5`, `1e+19`,
 * `2.147483648e+09`).
 *
 * @internal
 */
export function goNumber(v: number): string {
  return isInt64(v) ? String(v) : goFloat(v);
}

/** Whether the JSON decoder makes an int64 of the number (JSON.stringify writes it without fraction or exponent). @internal */
export function isInt64(v: number): boolean {
  return Number.isInteger(v) && Math.abs(v) < 1e21 && v >= -(2 ** 63) && v < 2 ** 63;
}

/** Go's `%v` of a float64: strconv.FormatFloat(v, 'g', -1, 64), exponent of two digits at least. @internal */
export function goFloat(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  if (v === 0) return Object.is(v, -0) ? '-0' : '0';
  const [mantissa, exp] = v.toExponential().split('e');
  const e = Number(exp);
  // %g with the shortest precision: %e when the exponent is below -4 or at least 6 (strconv's eprec for shortest)
  if (e < -4 || e >= 6) {
    const sign = e < 0 ? '-' : '+';
    return `${mantissa}e${sign}${String(Math.abs(e)).padStart(2, '0')}`;
  }
  return String(v);
}

/** Go's strconv.Quote: printable characters as they are, the rest escaped (`\x00`, `\v`, `\u00a0`, `\U0001f600`). @internal */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') {
      out += `\\${ch}`;
    } else if (SHORT_ESCAPES[ch]) {
      out += SHORT_ESCAPES[ch];
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\uFFFD';
    } // a lone surrogate: Go's JSON decoder made U+FFFD of it
    else if (isGoPrint(ch)) {
      out += ch;
    } else if (cp < 0x20 || cp === 0x7f) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return `${out}"`;
}

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
function isGoPrint(ch: string): boolean {
  return PRINTABLE.test(ch);
}

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/**
 * Go's `%#v` of a value decoded from JSON into `interface{}`: `map[string]interface {}{"a":1, "b":"x"}` (keys
 * sorted), `[]interface {}{1, "a"}`, `interface {}(nil)` inside them.
 *
 * @internal
 */
export function goSharpV(v: unknown, nested = false): string {
  if (v === null || v === undefined) return nested ? 'interface {}(nil)' : '<nil>';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSharpV(x, true)).join(', ')}}`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => compareCodePoints(a, b));
  return `map[string]interface {}{${entries.map(([k, x]) => `${goQuote(k)}:${goSharpV(x, true)}`).join(', ')}}`;
}

/**
 * Go's encoding/json.Marshal of a value decoded from JSON: object keys sorted, `<`, `>`, `&`, U+2028 and U+2029
 * escaped, floats as Go writes them (`1e+21`, `1e-7`).
 *
 * @internal
 */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number') return isInt64(v) ? String(v) : goJsonFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => goJson(x)).join(',')}]`;
  const entries = Object.entries(v as Record<string, unknown>)
    .filter(([, x]) => x !== undefined)
    .sort(([a], [b]) => compareCodePoints(a, b));
  return `{${entries.map(([k, x]) => `${goJsonString(k)}:${goJson(x)}`).join(',')}}`;
}

function goJsonString(s: string): string {
  return JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

/** encoding/json's float64: 'f' format, or 'e' below 1e-6 and from 1e21 (`1e-07` cleaned to `1e-7`), as JavaScript does. */
function goJsonFloat(v: number): string {
  return JSON.stringify(v);
}

/** Go's string order: UTF-8 bytes, i.e. code points (JavaScript's `<` compares UTF-16 units: U+FFFF > U+1F600 there). @internal */
export function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}
