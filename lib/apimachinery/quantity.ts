/**
 * A Kubernetes resource quantity as `k8s.io/apimachinery/pkg/api/resource.Quantity` holds it, for the CEL `quantity()`
 * library: the value and also its representation, because the library's answers depend on it. Go keeps a quantity
 * either as an int64 times a power of ten (`int64Amount`, what `ParseQuantity`'s fast path produces) or as an
 * arbitrary-precision decimal (`inf.Dec`, its slow path, rounded up to nano precision, binary values capped at
 * 2^63-1): `isInteger()`/`asInteger()` succeed only for an int64 amount with a non-negative scale (`1000m` and `1.0`
 * are not integers, nor is anything on the slow path), and `asApproximateFloat()` multiplies the unscaled value by
 * `math.Pow10` of the scale. `add` and `sub` stay on int64 while they fit, as Go's do.
 *
 * Values are exact (bigint digits and a decimal exponent), so comparisons are exact at any size; a decimal that Go
 * would write out with more than a million digits is kept unexpanded (Go takes minutes there).
 *
 * @internal
 */
export class Quantity {
  /**
   * Parses `1.5Gi`, `100m`, `2e3`… exactly where `resource.ParseQuantity` does, quirks included (`+`, `.`,
   * `Ki` and `1.G` are zero, zero, zero and one giga); throws, with the apiserver's message, for anything it refuses.
   * Never throws for a text `isValid` accepts, whatever its exponent.
   */
  public static parse(text: string): Quantity {
    const parsed = parseQuantityText(text);
    if (typeof parsed === 'string') throw new Error(parsed);
    const { negative, num, denom, suffix } = parsed;
    const digits = BigInt(`${num}${denom}`);
    if (takesFastPath(num, denom, suffix)) {
      const mantissa = suffix.kind === 'binary' ? 2n ** BigInt(suffix.exponent) : 1n;
      const scale = int32((suffix.kind === 'decimal' ? suffix.exponent : 0) - denom.length);
      const value = digits * mantissa;
      if (value <= INT64_MAX) return new Quantity({ kind: 'int64', value: negative ? -value : value, scale });
    }
    // the slow path (inf.Dec): the digits as written, the suffix folded into the scale (int32 arithmetic, as Go's)
    let unscaled = digits;
    let infScale = denom.length;
    if (suffix.kind === 'binary') unscaled *= 2n ** BigInt(suffix.exponent);
    else infScale = int32(infScale + int32(-suffix.exponent));
    let goScale = infScale;
    if (unscaled !== 0n) {
      // a non-zero magnitude rounded up to nano precision: Go rescales to inf scale 9
      if (infScale > 9) {
        unscaled = decimalDigitsAtMost(unscaled) < infScale - 9 ? 1n : ceilDiv(unscaled, 10n ** BigInt(infScale - 9));
        infScale = 9;
      }
      goScale = 9;
    }
    if (suffix.kind === 'binary' && compareDecimals(unscaled, -infScale, INT64_MAX, 0) > 0) {
      unscaled = INT64_MAX;
      infScale = 0;
      goScale = 0;
    }
    return new Quantity({ kind: 'dec', unscaled: negative ? -unscaled : unscaled, infScale, goScale });
  }

  /** Whether `text` parses as a quantity (`resource.ParseQuantity` returns no error). */
  public static isValid(text: string): boolean {
    return typeof parseQuantityText(text) !== 'string';
  }

  /** An integer as `resource.NewQuantity(i, DecimalExponent)` holds it (the int operand of `add` and `sub`). */
  public static fromInt(value: bigint): Quantity {
    return new Quantity({ kind: 'int64', value: BigInt.asIntN(64, value), scale: 0 });
  }

  private constructor(private readonly amount: Amount) {}

  /** The exact value as digits and a power of ten. */
  private get exact(): { readonly unscaled: bigint; readonly exponent: number } {
    return this.amount.kind === 'int64'
      ? { unscaled: this.amount.value, exponent: this.amount.scale }
      : { unscaled: this.amount.unscaled, exponent: -this.amount.infScale };
  }

  public sign(): bigint {
    const u = this.exact.unscaled;
    return u === 0n ? 0n : u < 0n ? -1n : 1n;
  }

  /** `AsInt64()` succeeds: an int64 amount with a non-negative scale whose value fits int64. */
  public isInteger(): boolean {
    return this.asInt64() !== undefined;
  }

  /** The integer value; throws where `AsInt64()` fails (like `asInteger()`). */
  public asInteger(): bigint {
    const v = this.asInt64();
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  }

  private asInt64(): bigint | undefined {
    const a = this.amount;
    if (a.kind === 'dec' || a.scale < 0) return undefined;
    if (a.scale === 0 || a.value === 0n) return a.value;
    if (a.value === INT64_MIN || a.scale > 19) return undefined;
    const v = a.value * 10n ** BigInt(a.scale);
    return v >= INT64_MIN && v <= INT64_MAX ? v : undefined;
  }

  /** `AsApproximateFloat64()`: float64 of the unscaled value (Go's representation) times `math.Pow10(scale)`. */
  public asApproximateFloat(): number {
    const a = this.amount;
    let base: number;
    let exponent: number;
    if (a.kind === 'int64') {
      base = Number(a.value);
      exponent = a.scale;
    } else {
      const widen = a.goScale - a.infScale;
      base =
        widen > 400
          ? a.unscaled === 0n
            ? 0
            : a.unscaled > 0n
              ? Infinity
              : -Infinity
          : Number(a.unscaled * 10n ** BigInt(widen));
      exponent = -a.goScale;
    }
    return exponent === 0 ? base : base * goPow10(exponent);
  }

  /** `Quantity.Add`: on int64 while the sum fits (scales aligned downwards), else exact decimals. */
  public add(o: Quantity): Quantity {
    if (this.amount.kind === 'int64' && o.amount.kind === 'int64') {
      const sum = addInt64(this.amount, o.amount);
      if (sum) return new Quantity(sum);
    }
    return new Quantity(addDec(toDec(this.amount), toDec(o.amount)));
  }

  /** `Quantity.Sub`: `add` of the negated operand (int64 negation wraps, as Go's does). */
  public sub(o: Quantity): Quantity {
    if (this.amount.kind === 'int64' && o.amount.kind === 'int64') {
      const diff = addInt64(this.amount, {
        kind: 'int64',
        value: BigInt.asIntN(64, -o.amount.value),
        scale: o.amount.scale,
      });
      if (diff) return new Quantity(diff);
    }
    const y = toDec(o.amount);
    return new Quantity(addDec(toDec(this.amount), { ...y, unscaled: -y.unscaled }));
  }

  public compareTo(o: Quantity): bigint {
    const [a, b] = [this.exact, o.exact];
    return BigInt(compareDecimals(a.unscaled, a.exponent, b.unscaled, b.exponent));
  }

  /**
   * A text equal for equal quantities whatever their representation, for CEL's `==` on opaque values: the value's
   * residues modulo two 61-bit primes (10 is invertible there, so any exponent reduces) and its sign. Exact text would
   * mean writing out up to a million digits; a collision between different values has odds of about 2^-122.
   */
  public canonical(): string {
    const { unscaled, exponent } = this.exact;
    if (unscaled === 0n) return '0';
    return `${unscaled < 0n ? '-' : '+'}${CANONICAL_PRIMES.map((p) => residue(unscaled, exponent, p).toString(36)).join(':')}`;
  }
}

/** Two Mersenne-sized primes for {@link Quantity.canonical}. */
const CANONICAL_PRIMES = [2n ** 61n - 1n, 2n ** 61n - 31n];

/** (|u| · 10^e) mod p for a prime p other than 2 and 5. */
function residue(u: bigint, e: number, p: bigint): bigint {
  const base = e >= 0 ? 10n : modPow(10n, p - 2n, p);
  return (((u < 0n ? -u : u) % p) * modPow(base, BigInt(Math.abs(e)), p)) % p;
}

function modPow(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  let x = b % m;
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * x) % m;
    x = (x * x) % m;
  }
  return r;
}

/** Go's two representations: an int64 times 10^scale, or inf.Dec's unscaled × 10^-infScale (`goScale`: the inf scale Go's digits have after rounding). */
type Amount =
  | { readonly kind: 'int64'; readonly value: bigint; readonly scale: number }
  | { readonly kind: 'dec'; readonly unscaled: bigint; readonly infScale: number; readonly goScale: number };
type DecAmount = Extract<Amount, { kind: 'dec' }>;
type Int64Amount = Extract<Amount, { kind: 'int64' }>;

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);
/** Alignments Go would write out with more digits than this are refused rather than attempted. */
const MAX_ALIGN_DIGITS = 1_000_000;

function fitsInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** `positiveScaleInt64`: base × 10^scale when it fits int64. */
function scaleUp(base: bigint, scale: number): bigint | undefined {
  if (base === 0n) return 0n;
  if (base === INT64_MIN || scale > 19) return undefined;
  const v = base * 10n ** BigInt(scale);
  return fitsInt64(v) ? v : undefined;
}

/** `int64Amount.Add`: the sum at the smaller scale when every step fits int64, else undefined (Go falls back to inf.Dec). */
function addInt64(a: Int64Amount, b: Int64Amount): Int64Amount | undefined {
  if (b.value === 0n) return a;
  if (a.value === 0n) return b;
  if (a.scale === b.scale) {
    const c = a.value + b.value;
    return fitsInt64(c) ? { kind: 'int64', value: c, scale: a.scale } : undefined;
  }
  const [hi, lo] = a.scale > b.scale ? [a, b] : [b, a];
  const up = scaleUp(hi.value, hi.scale - lo.scale);
  if (up === undefined) return undefined;
  const c = up + lo.value;
  return fitsInt64(c) ? { kind: 'int64', value: c, scale: lo.scale } : undefined;
}

function toDec(a: Amount): DecAmount {
  return a.kind === 'dec' ? a : { kind: 'dec', unscaled: a.value, infScale: int32(-a.scale), goScale: int32(-a.scale) };
}

/** `inf.Dec.Add`: exact, at the larger of the two scales. */
function addDec(a: DecAmount, b: DecAmount): DecAmount {
  const infScale = Math.max(a.infScale, b.infScale);
  const align = (x: DecAmount) => {
    const widen = infScale - x.infScale;
    if (widen > MAX_ALIGN_DIGITS) throw new Error('quantity too large to compute');
    return x.unscaled * 10n ** BigInt(widen);
  };
  return { kind: 'dec', unscaled: align(a) + align(b), infScale, goScale: Math.max(a.goScale, b.goScale) };
}

/** x·10^ex against y·10^ey, exactly; magnitudes far apart are settled from bit lengths, without writing digits out. */
function compareDecimals(x: bigint, ex: number, y: bigint, ey: number): number {
  const sx = x === 0n ? 0 : x < 0n ? -1 : 1;
  const sy = y === 0n ? 0 : y < 0n ? -1 : 1;
  if (sx !== sy) return sx > sy ? 1 : -1;
  if (sx === 0) return 0;
  // |v|·10^e lies in [10^(lo-1), 10^hi) with lo, hi from the bit length (an n-bit number has n/4 to n/3+1 digits)
  const bx = bitLength(x);
  const by = bitLength(y);
  const [xLo, xHi] = [Math.floor(bx / 4) + ex, Math.floor(bx / 3) + 1 + ex];
  const [yLo, yHi] = [Math.floor(by / 4) + ey, Math.floor(by / 3) + 1 + ey];
  if (xLo > yHi) return sx;
  if (xHi < yLo) return -sx;
  const e = Math.min(ex, ey);
  const a = x * 10n ** BigInt(ex - e);
  const b = y * 10n ** BigInt(ey - e);
  return a === b ? 0 : a > b ? 1 : -1;
}

/** Bits of |v| (hexadecimal text is linear to produce; decimal text is not). */
function bitLength(v: bigint): number {
  const hex = (v < 0n ? -v : v).toString(16);
  return (hex.length - 1) * 4 + parseInt(hex[0], 16).toString(2).length;
}

/** Decimal digits of |v|, at most (exact for values of a few thousand bits). */
function decimalDigitsAtMost(v: bigint): number {
  const bits = bitLength(v);
  return bits <= 4096 ? (v < 0n ? -v : v).toString().length : Math.floor(bits * Math.log10(2)) + 1;
}

/** ⌈a / b⌉ for a, b > 0. */
function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** Go's int32 arithmetic: wraps around. */
function int32(n: number): number {
  return Number(BigInt.asIntN(32, BigInt(n)));
}

const POW10 = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS32 = [1, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288];
const POW10_NEG32 = [1, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320];

/** Go's `math.Pow10`, table by table (its products and quotients round differently from `10 ** n`). */
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return POW10_POS32[Math.floor(n / 32)] * POW10[n % 32];
  if (n >= -323 && n <= 0) return POW10_NEG32[Math.floor(-n / 32)] / POW10[-n % 32];
  return n > 0 ? Infinity : 0;
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
const NUMERIC_WRONG = "unable to parse quantity's numeric portion";
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

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
  if (suffixText in DECIMAL_SUFFIXES) {
    suffix = { kind: 'decimal', exponent: DECIMAL_SUFFIXES[suffixText] };
  } else if (suffixText in BINARY_SUFFIXES) {
    suffix = { kind: 'binary', exponent: BINARY_SUFFIXES[suffixText] };
  } else if (/^[eE][-+]?[0-9]+$/.test(suffixText) && isInt64(suffixText.slice(1))) {
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
    precision = 15 - num.length - Math.trunc(Math.fround((suffix.exponent * 3) / 10)) - 1;
  } else {
    precision = -1;
  }
  return precision >= 0 && int32(scale - denom.length) >= -9;
}

function isInt64(text: string): boolean {
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}
