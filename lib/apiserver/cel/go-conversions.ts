/**
 * Go's `strconv` and `time` parsers and formatters as cel-go's conversions use them (`int()`, `uint()`, `double()`,
 * `bool()`, `timestamp()`, and `string()` of a double, a duration or a timestamp), so that a rule computes on our side
 * what it computes on the apiserver. Each parser returns undefined where Go returns an error.
 *
 * @internal
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** `strconv.ParseInt(s, 10, 64)`: a sign, decimal digits (no underscores, no spaces), within int64. */
export function goParseInt(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** `strconv.ParseUint(s, 10, 64)`: decimal digits only (no sign), within uint64. */
export function goParseUint(s: string): bigint | undefined {
  if (!/^[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s);
  return n > UINT64_MAX ? undefined : n;
}

/** `strconv.ParseBool`. */
export function goParseBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/**
 * `strconv.ParseFloat(s, 64)`: Go's float syntax (decimal, or hexadecimal with a mandatory `p` exponent; `_` between
 * digits; `inf`/`infinity` with a sign and `nan` without, in any case), correctly rounded; values beyond float64's
 * range are an error (ErrRange), values below its precision underflow to zero.
 */
export function goParseFloat(s: string): number | undefined {
  const special = /^([+-]?)(inf|infinity)$/i.exec(s);
  if (special) return special[1] === '-' ? -Infinity : Infinity;
  if (/^nan$/i.test(s)) return NaN;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9][0-9_]*)$/.exec(s);
  if (hex) {
    if (!/[0-9a-fA-F]/.test(`${hex[2]}${hex[3] ?? ''}`) || !underscoreOk(s)) return undefined;
    return finite(
      hexFloat(
        hex[1] === '-',
        `${hex[2]}${hex[3] ?? ''}`.replace(/_/g, ''),
        (hex[3] ?? '').replace(/_/g, '').length,
        exponentOf(hex[4]),
      ),
    );
  }
  const dec = /^[+-]?(?:[0-9_]+\.?[0-9_]*|\.[0-9_]+)(?:[eE][+-]?[0-9][0-9_]*)?$/.exec(s);
  if (!dec || !/[0-9]/.test(s.replace(/[eE].*$/, '')) || !underscoreOk(s)) return undefined;
  return finite(Number(s.replace(/_/g, '')));
}

function finite(x: number): number | undefined {
  return Number.isFinite(x) ? x : undefined;
}

/** Go caps a parsed exponent at 10,000 (anything beyond overflows or underflows anyway). */
function exponentOf(text: string): number {
  const e = Number(text.replace(/_/g, '').replace(/^\+/, ''));
  return Math.max(-10_000, Math.min(10_000, e));
}

/** `strconv`'s underscoreOK: an underscore only between digits (or after a base prefix), never last. */
function underscoreOk(text: string): boolean {
  let s = text;
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && /[bBoOxX]/.test(s[1])) {
    i = 2;
    saw = '0';
    hex = /[xX]/.test(s[1]);
  }
  for (; i < s.length; i++) {
    if (/[0-9]/.test(s[i]) || (hex && /[a-fA-F]/.test(s[i]))) {
      saw = '0';
      continue;
    }
    if (s[i] === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** mantissa (hex digits) × 2^(exponent − 4·fractionDigits), rounded half to even to float64 (subnormals included). */
function hexFloat(negative: boolean, digits: string, fractionDigits: number, exponent: number): number {
  let m = BigInt(`0x${digits}`);
  if (m === 0n) return negative ? -0 : 0;
  let e = exponent - 4 * fractionDigits;
  const bits = m.toString(2).length;
  // the precision left at this magnitude: 53 bits, fewer in the subnormal range
  const top = bits - 1 + e;
  const precision = top >= -1022 ? 53 : 53 - (-1022 - top);
  if (precision <= 0) {
    // below half the smallest subnormal (or exactly half: ties to even, zero)
    const half = precision === 0 && m > 1n << BigInt(bits - 1);
    return (negative ? -1 : 1) * (half ? 2 ** -1074 : 0);
  }
  if (bits > precision) {
    const drop = BigInt(bits - precision);
    const rest = m & ((1n << drop) - 1n);
    const halfway = 1n << (drop - 1n);
    m >>= drop;
    if (rest > halfway || (rest === halfway && (m & 1n) === 1n)) m += 1n;
    e += Number(drop);
  }
  // m fits 54 bits: scaling by powers of two is exact until the range ends (then Infinity)
  let x = Number(m);
  while (e > 0) {
    const step = Math.min(e, 1000);
    x *= 2 ** step;
    e -= step;
  }
  while (e < 0) {
    const step = Math.min(-e, 1000);
    x /= 2 ** step;
    e += step;
  }
  return negative ? -x : x;
}

/** The shortest decimal digits that read back as `x` (x finite, non-zero) and the decimal exponent of the first. */
function shortestDigits(x: number): { digits: string; exponent: number } {
  const [mantissa, exp] = Math.abs(x).toExponential().split('e');
  return { digits: mantissa.replace('.', ''), exponent: Number(exp) };
}

/** `fmt.Sprintf("%g", x)` (`strconv.FormatFloat(x, 'g', -1, 64)`): the shortest digits, exponent form from 1e+06 and below 1e-04. */
export function goFormatFloatG(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  const sign = x < 0 || Object.is(x, -0) ? '-' : '';
  if (x === 0) return `${sign}0`;
  const { digits, exponent } = shortestDigits(x);
  if (exponent < -4 || exponent >= 6) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exponent);
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  return `${sign}${fixed(digits, exponent)}`;
}

/** `strconv.FormatFloat(x, 'f', -1, 64)`: the shortest digits in plain decimal notation. */
export function goFormatFloatF(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  const { digits, exponent } = shortestDigits(x);
  return `${x < 0 ? '-' : ''}${fixed(digits, exponent)}`;
}

function fixed(digits: string, exponent: number): string {
  const point = exponent + 1;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A parsed RFC 3339 time: the instant (Unix seconds, nanoseconds) and the offset it was written with (seconds east of UTC). */
export interface GoTime {
  readonly seconds: bigint;
  readonly nanos: number;
  readonly offset: number;
}

/** Unix seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: CEL's timestamp range. */
export const MIN_UNIX_SECONDS = -62135596800n;
export const MAX_UNIX_SECONDS = 253402300799n;

/**
 * `time.Parse(time.RFC3339, s)`, Go's fast path and its general layout parser together: 4-digit year, 2-digit month
 * and day (valid for the month), 1- or 2-digit hour below 24, 2-digit minutes and seconds below 60, an optional
 * fraction after `.` or `,` (digits past nanoseconds ignored), then `Z` or `±hh:mm` (hours up to 24, minutes up to 60).
 */
export function goParseRfc3339(s: string): GoTime | undefined {
  const m =
    /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:[.,]([0-9]+))?(Z|([+-])([0-9]{2}):([0-9]{2}))$/.exec(
      s,
    );
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day < 1 || day > daysIn(month, year)) return undefined;
  let offset = 0;
  if (m[8] !== 'Z') {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 24 || om > 60) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const nanos = m[7] ? Number(m[7].slice(0, 9).padEnd(9, '0')) : 0;
  const at = new Date(0);
  // setUTCFullYear, unlike Date.UTC, takes years 0–99 as written
  at.setUTCFullYear(year, month - 1, day);
  at.setUTCHours(hour, minute, second, 0);
  return { seconds: BigInt(at.getTime() / 1000) - BigInt(offset), nanos, offset };
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** `t.Format(time.RFC3339Nano)` of a time with the offset it was parsed with: fraction without trailing zeros, `Z` for UTC. */
export function goFormatRfc3339Nano(t: GoTime): string {
  const local = new Date(Number(t.seconds + BigInt(t.offset)) * 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  const fraction = t.nanos ? `.${String(t.nanos).padStart(9, '0').replace(/0+$/, '')}` : '';
  const o = Math.abs(t.offset);
  const zone =
    t.offset === 0
      ? 'Z'
      : `${t.offset < 0 ? '-' : '+'}${pad(Math.floor(o / 3600))}:${pad(Math.floor((o % 3600) / 60))}`;
  return `${date}T${time}${fraction}${zone}`;
}
