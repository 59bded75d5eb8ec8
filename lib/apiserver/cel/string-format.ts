import { isCelList, isCelMap, isCelType, isCelUint } from '@bufbuild/cel';
import { CelRuntime } from './cel-runtime';
import { durationString, timestampString, wellKnownKind } from './conversion-library';
import { goFormatFloatG } from './go-conversions';
import { compareCodePoints, goQuote } from '../../apimachinery/field-value';

/**
 * cel-go's `<string>.format(<list>)` of the strings extension versions 1 to 3 (`ext/formatting.go`'s
 * `parseFormatString` and `stringFormatter`, the same in cel-go v0.22 and v0.26, which Kubernetes 1.32 and 1.36 vendor
 * with `ext.StringsVersion(2)`; 1.28 has no `format()`).
 *
 * The clauses are `%s`, `%d`, `%f`, `%e`, `%b`, `%x`, `%X`, `%o`, each with an optional `.N` precision (read for every
 * clause, used by `%f` and `%e` only), and `%%`. Arguments the clauses do not use are ignored. `%f` and `%e` go
 * through golang.org/x/text's message printer for the `en_US` locale: `%f` groups thousands (`1,234.500000`) and writes
 * infinity as `∞`; `%e` prints `1.234560 × 10⁰³` with six fraction digits whatever the precision, which cel-go passes
 * as the field width instead (`%%%de`). Doubles inside lists and maps are Go's `%.6f`, strings there quoted (`%q`).
 */
export function celFormat(format: string, args: readonly unknown[], runtime: CelRuntime): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    if (format[i] !== '%') {
      out += format[i++];
      continue;
    }
    if (format[i + 1] === '%') {
      out += '%';
      i += 2;
      continue;
    }
    if (argIndex >= args.length) throw new Error(`index ${argIndex} out of range`);
    if (i + 1 >= format.length) throw new Error('unexpected end of string');
    const clause = parseClause(format, i + 1, runtime);
    out += clause.apply(args[argIndex]);
    i = clause.end;
    argIndex++;
  }
  return out;
}

const DEFAULT_PRECISION = 6;

/** The clause starting at `start` (after the `%`): where it ends and how it formats its argument. */
function parseClause(
  format: string,
  start: number,
  runtime: CelRuntime,
): { end: number; apply: (arg: unknown) => string } {
  let i = start;
  let precision: number | undefined;
  if (format[i] === '.') {
    i++;
    let digits = '';
    for (;;) {
      if (i >= format.length) {
        throw clauseError('error while parsing precision: could not find end of precision specifier');
      }
      if (!/[0-9]/.test(format[i])) break;
      digits += format[i++];
    }
    // strconv.Atoi: an empty or out-of-range number is an error
    if (digits === '' || BigInt(digits) > 2n ** 63n - 1n) {
      throw clauseError(
        `error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "${digits}": ${digits === '' ? 'invalid syntax' : 'value out of range'}`,
      );
    }
    precision = Number(digits);
  }
  const verb = format[i];
  const end = i + 1;
  const formatting = (f: (arg: unknown) => string) => ({
    end,
    apply: (arg: unknown) => {
      try {
        return f(arg);
      } catch (e) {
        throw new Error(`error during formatting: ${(e as Error).message}`);
      }
    },
  });
  switch (verb) {
    case 's':
      return formatting(formatString);
    case 'd':
      return formatting(formatDecimal);
    case 'f':
      return formatting((arg) => fixed(arg, precision ?? DEFAULT_PRECISION));
    case 'e':
      return formatting((arg) => scientific(arg, precision ?? DEFAULT_PRECISION, runtime.spacedScientific));
    case 'b':
      return formatting(binary);
    case 'x':
      return formatting((arg) => hex(arg, false));
    case 'X':
      return formatting((arg) => hex(arg, true));
    case 'o':
      return formatting(octal);
    default:
      throw clauseError(`unrecognized formatting clause "${verb}"`);
  }
}

const clauseError = (why: string) => new Error(`could not parse formatting clause: ${why}`);

type Kind =
  | 'int'
  | 'uint'
  | 'double'
  | 'string'
  | 'bool'
  | 'bytes'
  | 'null'
  | 'timestamp'
  | 'duration'
  | 'list'
  | 'map'
  | 'type'
  | 'other';

function kindOf(v: unknown): Kind {
  switch (typeof v) {
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
  }
  if (v === null) return 'null';
  if (v instanceof Uint8Array) return 'bytes';
  if (isCelUint(v)) return 'uint';
  if (isCelList(v)) return 'list';
  if (isCelMap(v)) return 'map';
  if (isCelType(v)) return 'type';
  return wellKnownKind(v) ?? 'other';
}

/** cel-go's type names in its errors. */
const TYPE_NAMES: Record<Kind, string> = {
  int: 'int',
  uint: 'uint',
  double: 'double',
  string: 'string',
  bool: 'bool',
  bytes: 'bytes',
  null: 'null_type',
  timestamp: 'google.protobuf.Timestamp',
  duration: 'google.protobuf.Duration',
  list: 'list',
  map: 'map',
  type: 'type',
  other: 'object',
};

const uintValue = (v: unknown) => (v as { value: bigint }).value;

/** `%s` (cel-go's `FormatString`): the value's `string()` conversion; lists and maps as CEL literals. */
function formatString(v: unknown): string {
  const kind = kindOf(v);
  switch (kind) {
    case 'list':
      return formatList(v as Iterable<unknown>);
    case 'map':
      return formatMap(v as Iterable<[unknown, unknown]>);
    case 'int':
      return String(v);
    case 'uint':
      return String(uintValue(v));
    case 'double':
      return goFormatFloatG(v as number);
    case 'bool':
      return v ? 'true' : 'false';
    case 'string':
      return v as string;
    case 'bytes': {
      try {
        return new TextDecoder('utf-8', { fatal: true }).decode(v as Uint8Array);
      } catch {
        throw new Error('could not convert argument "invalid UTF-8 in bytes, cannot convert to string" to string');
      }
    }
    case 'timestamp':
      return timestampString(v);
    case 'duration':
      return durationString(v);
    case 'type':
      return (v as { name: string }).name;
    case 'null':
      return 'null';
    default:
      throw new Error(
        `string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given ${TYPE_NAMES[kind]}`,
      );
  }
}

/** `%d`: ints and uints only. */
function formatDecimal(v: unknown): string {
  const kind = kindOf(v);
  if (kind === 'int') return String(v);
  if (kind === 'uint') return String(uintValue(v));
  throw new Error(`decimal clause can only be used on integers, was given ${TYPE_NAMES[kind]}`);
}

/** A list or map element (cel-go's `clauseForType` and `quoteForCEL`): as a CEL literal would write it. */
function formatElement(v: unknown): string {
  const kind = kindOf(v);
  switch (kind) {
    case 'int':
    case 'uint':
      return formatDecimal(v);
    case 'string':
      return goQuote(v as string);
    case 'bytes':
      return `b${goQuote(formatString(v))}`;
    case 'bool':
    case 'null':
    case 'type':
      return formatString(v);
    case 'timestamp':
      return `timestamp(${goQuote(timestampString(v))})`;
    case 'duration':
      return `duration(${goQuote(durationString(v))})`;
    case 'list':
      return formatList(v as Iterable<unknown>);
    case 'map':
      return formatMap(v as Iterable<[unknown, unknown]>);
    case 'double': {
      const x = v as number;
      const text = goSprintfF(x, DEFAULT_PRECISION);
      return Number.isFinite(x) ? text : goQuote(text);
    }
    default:
      throw new Error(`no formatting function for ${TYPE_NAMES[kind]}`);
  }
}

function formatList(list: Iterable<unknown>): string {
  return `[${[...list].map(formatElement).join(', ')}]`;
}

/** Entries `key:value` sorted by the formatted key (Go's byte order); keys are strings, bools, ints or uints. */
function formatMap(map: Iterable<[unknown, unknown]>): string {
  const entries = [...map].map(([k, v]) => {
    const kind = kindOf(k);
    let key: string;
    if (kind === 'string') key = goQuote(k as string);
    else if (kind === 'bool') key = formatString(k);
    else if (kind === 'int' || kind === 'uint') key = formatDecimal(k);
    else throw new Error(`no formatting function for map key of type ${TYPE_NAMES[kind]}`);
    return { key, value: formatElement(v) };
  });
  entries.sort((a, b) => compareCodePoints(a.key, b.key));
  return `{${entries.map((e) => `${e.key}:${e.value}`).join(', ')}}`;
}

/** The double a `%f`/`%e` clause formats: doubles, and the strings `NaN`, `Infinity`, `-Infinity`. */
function floatArgument(v: unknown, clause: string): number {
  const kind = kindOf(v);
  if (kind === 'double') return v as number;
  if (kind === 'string' && (v === 'NaN' || v === 'Infinity' || v === '-Infinity')) return Number(v);
  throw new Error(`${clause} clause can only be used on doubles, was given ${TYPE_NAMES[kind]}`);
}

/**
 * `%.Nf` through x/text's message printer (`en_US`): the exact value rounded half-even to N fraction digits, thousands
 * grouped with `,`, `∞` for infinity, no sign for -0. The printer keeps N in a uint8 (minimum fraction digits) and an
 * int16 (maximum), as x/text does.
 */
function fixed(v: unknown, precision: number): string {
  const x = floatArgument(v, 'fixed-point');
  if (Number.isNaN(x)) return 'NaN';
  const sign = x < 0 ? '-' : '';
  if (!Number.isFinite(x)) return `${sign}∞`;
  const minFrac = precision & 0xff;
  const maxFrac = ((precision + 0x8000) & 0xffff) - 0x8000;
  const d = maxFrac >= 0 ? roundedToFraction(Math.abs(x), maxFrac) : shortest(Math.abs(x));
  const end = d.digits.length === 0 ? minFrac : Math.max(d.digits.length, d.exp + minFrac);
  const exp = d.digits.length === 0 ? 0 : d.exp;
  const numInt = Math.max(exp, 0);
  let int = '';
  for (let i = 0; i < numInt; i++) {
    int += d.digits[i] ?? '0';
    const left = numInt - i - 1;
    if (left > 0 && left % 3 === 0) int += ',';
  }
  if (int === '') int = '0';
  const numFrac = end - exp;
  if (numFrac <= 0) return sign + int;
  const frac = ('0'.repeat(Math.max(-exp, 0)) + (exp > 0 ? d.digits.slice(exp) : d.digits)).padEnd(numFrac, '0');
  return `${sign}${int}.${frac}`;
}

/**
 * `%e` as cel-go writes it, `fmt.Sprintf("%%%de", precision)`: the precision becomes the printer's field width (`%.3e`
 * is `%3e`, `%.0e` the zero flag), the digits are always 7 significant ones, and x/text's `en` pattern writes the
 * exponent superscripted: `-1.234560×10⁻⁰⁴`, before x/text v0.23.0 with narrow no-break spaces around the `×`
 * (`spaced`; measured: 1.32 has them, 1.36 not).
 */
function scientific(v: unknown, precision: number, spaced: boolean): string {
  const x = floatArgument(v, 'scientific');
  const width = precision;
  let text: string;
  if (Number.isNaN(x)) {
    text = 'NaN';
  } else if (!Number.isFinite(x)) {
    text = `${x < 0 ? '-' : ''}∞`;
  } else {
    const d = roundedToSignificant(Math.abs(x), 7);
    const digits = d.digits.length === 0 ? '0' : d.digits;
    const exp = (d.digits.length === 0 ? 1 : d.exp) - 1;
    const mantissa = `${digits[0]}.${digits.slice(1).padEnd(6, '0')}`;
    const power = [...String(Math.abs(exp)).padStart(2, '0')].map((c) => SUPERSCRIPT_DIGITS[Number(c)]).join('');
    const times = spaced ? '\u202f×\u202f' : '×';
    text = `${x < 0 ? '-' : ''}${mantissa}${times}10${exp < 0 ? '\u207b' : ''}${power}`;
  }
  const runes = [...text].length;
  return width > runes ? ' '.repeat(width - runes) + text : text;
}

const SUPERSCRIPT_DIGITS = [
  '\u2070',
  '\u00b9',
  '\u00b2',
  '\u00b3',
  '\u2074',
  '\u2075',
  '\u2076',
  '\u2077',
  '\u2078',
  '\u2079',
];

/** `%b`: ints, uints and bools. */
function binary(v: unknown): string {
  const kind = kindOf(v);
  if (kind === 'int') return (v as bigint).toString(2);
  if (kind === 'uint') return uintValue(v).toString(2);
  if (kind === 'bool') return v ? '1' : '0';
  throw new Error(`only integers and bools can be formatted as binary, was given ${TYPE_NAMES[kind]}`);
}

/** `%x`/`%X`: ints, uints, and the bytes of strings and byte strings. */
function hex(v: unknown, upper: boolean): string {
  const kind = kindOf(v);
  let text: string;
  if (kind === 'int') {
    text = (v as bigint).toString(16);
  } else if (kind === 'uint') {
    text = uintValue(v).toString(16);
  } else if (kind === 'string') {
    text = Buffer.from(v as string, 'utf8').toString('hex');
  } else if (kind === 'bytes') {
    text = Buffer.from(v as Uint8Array).toString('hex');
  } else {
    throw new Error(`only integers, byte buffers, and strings can be formatted as hex, was given ${TYPE_NAMES[kind]}`);
  }
  return upper ? text.toUpperCase() : text;
}

/** `%o`: ints and uints. */
function octal(v: unknown): string {
  const kind = kindOf(v);
  if (kind === 'int') return (v as bigint).toString(8);
  if (kind === 'uint') return uintValue(v).toString(8);
  throw new Error(`octal clause can only be used on integers, was given ${TYPE_NAMES[kind]}`);
}

/** Go's `fmt.Sprintf("%.Nf", x)` (no locale): `+Inf`, `-Inf`, `NaN`, a sign on -0. */
function goSprintfF(x: number, precision: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x < 0 ? '-Inf' : '+Inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  const d = roundedToFraction(Math.abs(x), precision);
  const text = d.scaled.toString().padStart(precision + 1, '0');
  const int = text.slice(0, text.length - precision);
  return precision > 0 ? `${sign}${int}.${text.slice(-precision)}` : `${sign}${int}`;
}

/** Digits without leading or trailing zeros and the exponent `e` of the value `0.digits × 10^e` (x/text's Decimal). */
interface Decimal {
  readonly digits: string;
  readonly exp: number;
}

/** A finite, non-negative double exactly as `integer / 10^scale`. */
function exactDecimal(x: number): { integer: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exp2 = (biased === 0 ? 1 : biased) - 1075;
  if (exp2 >= 0) return { integer: mantissa << BigInt(exp2), scale: 0 };
  return { integer: mantissa * 5n ** BigInt(-exp2), scale: -exp2 };
}

/** `q` rounded from dropping `drop` decimal digits of `n`, half to even (strconv's rounding of exact values). */
function roundDrop(n: bigint, drop: number): bigint {
  if (drop <= 0) return n * 10n ** BigInt(-drop);
  const unit = 10n ** BigInt(drop);
  const q = n / unit;
  const r = (n % unit) * 2n;
  return r > unit || (r === unit && q % 2n === 1n) ? q + 1n : q;
}

function normalized(digits: string, exp: number): Decimal {
  const lead = digits.length - digits.replace(/^0+/, '').length;
  const trimmed = digits.slice(lead).replace(/0+$/, '');
  return { digits: trimmed, exp: trimmed === '' ? 0 : exp - lead };
}

/** `strconv.AppendFloat(x, 'f', n, 64)` as digits (x/text's `ConvertFloat` with a fraction-digit rounding). */
function roundedToFraction(x: number, fractionDigits: number): Decimal & { scaled: bigint } {
  const { integer, scale } = exactDecimal(x);
  const scaled = roundDrop(integer, scale - fractionDigits);
  const text = scaled.toString();
  return { ...normalized(text, text.length - fractionDigits), scaled };
}

/** `strconv.AppendFloat(x, 'g', n, 64)` as digits: n significant digits, half to even. */
function roundedToSignificant(x: number, significant: number): Decimal {
  if (x === 0) return { digits: '', exp: 0 };
  const { integer, scale } = exactDecimal(x);
  const length = integer.toString().length;
  const rounded = roundDrop(integer, length - significant).toString();
  // the rounding may carry into a new digit (9.9999995 → 10.00000)
  return normalized(rounded, rounded.length + (length - significant) - scale);
}

/** The shortest digits that read back as `x` (strconv's `-1` precision). */
function shortest(x: number): Decimal {
  if (x === 0) return { digits: '', exp: 0 };
  const [mantissa, e] = x.toExponential().split('e');
  return normalized(mantissa.replace('.', ''), Number(e) + 1);
}

/** What a static format check asks of the argument a clause formats: `undefined` when it fits, else why and where. */
export type FormatArgumentCheck = (
  verb: string,
  index: number,
) => { readonly message: string; readonly at: unknown } | undefined;

/** The types each clause accepts at compile time (cel-go's `stringFormatChecker`; dyn always fits). */
export const FORMAT_CLAUSE_KINDS: Readonly<
  Record<string, { readonly kinds: readonly string[]; readonly error: string }>
> = {
  d: { kinds: ['int', 'uint'], error: 'decimal clause can only be used on integers, was given %s' },
  f: { kinds: ['double', 'string'], error: 'fixed-point clause can only be used on doubles, was given %s' },
  e: { kinds: ['double', 'string'], error: 'scientific clause can only be used on doubles, was given %s' },
  b: { kinds: ['int', 'uint', 'bool'], error: 'only integers and bools can be formatted as binary, was given %s' },
  x: {
    kinds: ['int', 'uint', 'string', 'bytes'],
    error: 'only integers, byte buffers, and strings can be formatted as hex, was given %s',
  },
  X: {
    kinds: ['int', 'uint', 'string', 'bytes'],
    error: 'only integers, byte buffers, and strings can be formatted as hex, was given %s',
  },
  o: { kinds: ['int', 'uint'], error: 'octal clause can only be used on integers, was given %s' },
  s: {
    kinds: ['list', 'map', 'int', 'uint', 'double', 'bool', 'string', 'timestamp', 'bytes', 'duration', 'type', 'null'],
    error:
      'string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given %s',
  },
};

/**
 * cel-go's compile-time check of `'<literal>'.format([<list literal>])` (the strings extension's
 * `stringFormatValidator`, measured on 1.32.13 and 1.36.3): the format string is walked as at run time, each clause's
 * argument checked by `check`; the first problem stops it. `at` is undefined for problems placed at the call (an
 * unknown clause, a missing argument, too many arguments), else what `check` returned.
 */
export function validateFormatStatically(
  format: string,
  argCount: number,
  check: FormatArgumentCheck,
): { message: string; at?: unknown } | undefined {
  let requested = 0;
  for (let i = 0; i < format.length;) {
    if (format[i] !== '%') {
      i++;
      continue;
    }
    if (format[i + 1] === '%') {
      i += 2;
      continue;
    }
    const index = requested++;
    if (i + 1 >= format.length) return { message: 'unexpected end of string' };
    if (index >= argCount) return { message: `index ${index} out of range` };
    let j = i + 1;
    if (format[j] === '.') {
      j++;
      let digits = '';
      for (;;) {
        if (j >= format.length) {
          return {
            message:
              'could not parse formatting clause: error while parsing precision: could not find end of precision specifier',
          };
        }
        if (!/[0-9]/.test(format[j])) break;
        digits += format[j++];
      }
      if (digits === '' || BigInt(digits) > 2n ** 63n - 1n) {
        return {
          message: `could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "${digits}": ${digits === '' ? 'invalid syntax' : 'value out of range'}`,
        };
      }
    }
    const verb = format[j];
    if (!FORMAT_CLAUSE_KINDS[verb]) {
      return { message: `could not parse formatting clause: unrecognized formatting clause "${verb}"` };
    }
    const bad = check(verb, index);
    if (bad) return { message: `error during formatting: ${bad.message}`, at: bad.at };
    i = j + 1;
  }
  if (argCount > requested) {
    return { message: `too many arguments supplied to string.format (expected ${requested}, got ${argCount})` };
  }
  return undefined;
}
