/**
 * A Kubernetes resource quantity (`k8s.io/apimachinery/pkg/api/resource.Quantity`) as an exact
 * rational number, enough for the CEL `quantity()` library: parse, compare, add, subtract.
 *
 * @internal
 */
export class Quantity {
  /**
   * Parses `1.5Gi`, `100m`, `2e3`… exactly where `resource.ParseQuantity` does, quirks included (`+`, `.`,
   * `Ki` and `1.G` are zero, zero, zero and one giga); throws, with the apiserver's message, for anything it refuses.
   * Values Go parses on its arbitrary-precision path are rounded as Go rounds them: a non-zero magnitude up to the
   * next nano (`1.0000000001` is `1.000000001`), binary ones capped at 2^63-1 (`16Ei` is `9223372036854775807`).
   */
  public static parse(text: string): Quantity {
    const parsed = parseQuantityText(text);
    if (typeof parsed === 'string') throw new Error(parsed);
    const { negative, num, denom, suffix } = parsed;
    if (Math.abs(suffix.exponent) > MAX_EXPONENT) throw new Error(`quantity exponent ${suffix.exponent} is too large to compute exactly`);
    let value = BigInt(`${num}${denom}`);
    let den = 10n ** BigInt(denom.length);
    if (suffix.kind === 'binary') value *= 2n ** BigInt(suffix.exponent);
    else if (suffix.exponent >= 0) value *= 10n ** BigInt(suffix.exponent);
    else den *= 10n ** BigInt(-suffix.exponent);
    if (!takesFastPath(num, denom, suffix)) {
      // the slow path (inf.Dec): a non-zero magnitude rounded up to nano precision; binary values capped at int64's max
      if (value !== 0n) value = ceilDiv(value * NANO_UNITS, den) * den / NANO_UNITS;
      if (suffix.kind === 'binary' && value > INT64_MAX * den) value = INT64_MAX * den;
    }
    return new Quantity(negative ? -value : value, den);
  }

  /** Whether `text` parses as a quantity (`resource.ParseQuantity` returns no error). */
  public static isValid(text: string): boolean {
    return typeof parseQuantityText(text) !== 'string';
  }

  public readonly num: bigint;
  public readonly den: bigint;

  constructor(num: bigint, den: bigint = 1n) {
    const g = gcd(num < 0n ? -num : num, den) || 1n;
    this.num = num / g;
    this.den = den / g;
  }

  public sign(): bigint {
    return this.num === 0n ? 0n : this.num < 0n ? -1n : 1n;
  }

  public isInteger(): boolean {
    return this.den === 1n;
  }

  /** The integer value; throws when fractional or out of int64 range (like `asInteger()`). */
  public asInteger(): bigint {
    if (this.den !== 1n || this.num > 2n ** 63n - 1n || this.num < -(2n ** 63n)) {
      throw new Error('cannot convert value to integer');
    }
    return this.num;
  }

  public asApproximateFloat(): number {
    return Number(this.num) / Number(this.den);
  }

  public add(o: Quantity): Quantity {
    return new Quantity(this.num * o.den + o.num * this.den, this.den * o.den);
  }

  public sub(o: Quantity): Quantity {
    return new Quantity(this.num * o.den - o.num * this.den, this.den * o.den);
  }

  public compareTo(o: Quantity): bigint {
    const d = this.num * o.den - o.num * this.den;
    return d === 0n ? 0n : d < 0n ? -1n : 1n;
  }

  /** Exact canonical text (`num/den`), equal for equal quantities. */
  public canonical(): string {
    return this.den === 1n ? this.num.toString() : `${this.num}/${this.den}`;
  }
}

const NANO_UNITS = 1_000_000_000n;
const INT64_MAX = 2n ** 63n - 1n;

/** ⌈a / b⌉ for a, b > 0. */
function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** What `parseQuantityText` found: the sign, the digits around the dot (leading zeros stripped) and the suffix. */
interface QuantityParts {
  readonly negative: boolean;
  readonly num: string;
  readonly denom: string;
  readonly suffix: { readonly kind: 'binary' | 'decimal'; readonly exponent: number };
}

const FORMAT_WRONG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const SUFFIX_WRONG = "unable to parse quantity's suffix";
const NUMERIC_WRONG = 'unable to parse quantity\'s numeric portion';
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = { 'n': -9, 'u': -6, 'm': -3, '': 0, 'k': 3, 'M': 6, 'G': 9, 'T': 12, 'P': 15, 'E': 18 };
/** Valid exponents beyond this (Go allows any int32) name numbers too large to compute exactly here. */
const MAX_EXPONENT = 100_000;

/**
 * `parseQuantityString` and the checks of `ParseQuantity` around it, as apimachinery v0.32 has them: a sign,
 * digits with at most one dot (none needed: `+` and `.` are zero), suffix characters from `eEinumkKMGTP`, an optional
 * signed exponent; then the suffix must be a known one or `e`/`E` and an int64; and the digits must be parseable
 * where Go falls back to its arbitrary-precision path (no digit at all there is an error: `Ei`, `+Ei`, `.e-10`).
 * Returns the parts, or the apiserver's error message.
 */
function parseQuantityText(text: string): QuantityParts | string {
  if (text.length === 0) return FORMAT_WRONG;
  const m = /^([+-]?)(0*)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*)([-+]?[0-9]*)$/.exec(text);
  if (!m) return FORMAT_WRONG;
  const [, sign, zeros, digits, denom = '', letters, exponentDigits] = m;
  const suffixText = `${letters}${exponentDigits}`;
  let suffix: QuantityParts['suffix'];
  if (suffixText in DECIMAL_SUFFIXES) suffix = { kind: 'decimal', exponent: DECIMAL_SUFFIXES[suffixText] };
  else if (suffixText in BINARY_SUFFIXES) suffix = { kind: 'binary', exponent: BINARY_SUFFIXES[suffixText] };
  else if (/^[eE][-+]?[0-9]+$/.test(suffixText) && isInt64(suffixText.slice(1))) {
    // Go keeps the exponent as an int32: larger ones wrap around
    suffix = { kind: 'decimal', exponent: Number(BigInt.asIntN(32, BigInt(suffixText.slice(1)))) };
  } else {
    return SUFFIX_WRONG;
  }
  const num = digits || '0';
  // the slow path reads the digits as written (sign, zeros, dot included) and needs at least one
  if (!takesFastPath(num, denom, suffix) && !/[0-9]/.test(`${zeros}${digits}${denom}`)) return NUMERIC_WRONG;
  return { negative: sign === '-', num, denom, suffix };
}

/**
 * Whether `ParseQuantity` computes the value in int64 (its fast path) rather than from the text's digits:
 * few enough digits, a scale not below nano, and for binary suffixes no fraction and a small enough number.
 */
function takesFastPath(num: string, denom: string, suffix: QuantityParts['suffix']): boolean {
  let precision: number;
  let scale = 0;
  if (suffix.kind === 'decimal') {
    scale = suffix.exponent;
    precision = 18 - (num.length + denom.length);
  } else if (denom.length === 0) {
    precision = 15 - num.length - Math.trunc(Math.fround(suffix.exponent * 3 / 10)) - 1;
  } else {
    precision = -1;
  }
  return precision >= 0 && scale - denom.length >= -9;
}

function isInt64(text: string): boolean {
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}
