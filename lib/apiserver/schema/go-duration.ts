/**
 * Go's `time.ParseDuration`: a sign, then one or more decimal numbers each with a unit (`ns`, `us`, `µs`, `μs`,
 * `ms`, `s`, `m`, `h`), `0` alone; the total in nanoseconds must fit an int64 (`-2562047h47m16.854775808s` fits,
 * one nanosecond more does not). Used by the `duration` format and CEL's `duration()`.
 * Returns the nanoseconds, or undefined when Go refuses the text.
 *
 * @internal
 */
export function goParseDuration(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') return undefined;
  let d = 0n;
  while (s !== '') {
    if (!(s[0] === '.' || isDigit(s[0]))) return undefined;
    // leadingInt: digits, an error past 1<<63
    let i = 0;
    let v = 0n;
    while (i < s.length && isDigit(s[i])) {
      if (v > OVER / 10n) return undefined;
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > OVER) return undefined;
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // leadingFraction: digits after '.', the ones that would overflow dropped
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s !== '' && s[0] === '.') {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (j < s.length && isDigit(s[j])) {
        if (!overflow) {
          if (f > (OVER - 1n) / 10n) {
            overflow = true;
          } else {
            const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
            if (y > OVER) {
              overflow = true;
            } else {
              f = y;
              scale *= 10;
            }
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return undefined;
    let u = 0;
    while (u < s.length && s[u] !== '.' && !isDigit(s[u])) u++;
    if (u === 0) return undefined;
    const unit = UNITS[s.slice(0, u)];
    s = s.slice(u);
    if (unit === undefined) return undefined;
    if (v > OVER / unit) return undefined;
    v *= unit;
    if (f > 0n) {
      // Go computes the fraction's nanoseconds in float64
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > OVER) return undefined;
    }
    d += v;
    if (d > OVER) return undefined;
  }
  if (neg) return -d;
  if (d > OVER - 1n) return undefined;
  return d;
}

/** 1<<63: the magnitude of the most negative duration. */
const OVER = 2n ** 63n;

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9';
}
