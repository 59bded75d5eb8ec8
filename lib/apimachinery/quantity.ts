/**
 * A Kubernetes resource quantity (`k8s.io/apimachinery/pkg/api/resource.Quantity`) as an exact
 * rational number, enough for the CEL `quantity()` library: parse, compare, add, subtract.
 *
 * @internal
 */
export class Quantity {
  /** Parses `1.5Gi`, `100m`, `2e3`…; throws for anything the apiserver would not parse. */
  public static parse(text: string): Quantity {
    const m = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$/.exec(text);
    if (!m) throw new Error(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$', got '${text}'`);
    const [, sign, digits, suffix = ''] = m;
    const [whole, frac = ''] = digits.split('.');
    let num = BigInt(`${whole || '0'}${frac}`) * (sign === '-' ? -1n : 1n);
    let den = 10n ** BigInt(frac.length);
    const binary: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
    const decimal: Record<string, number> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
    let exp10 = 0;
    if (suffix in binary) num *= 2n ** BigInt(binary[suffix]);
    else if (suffix in decimal) exp10 = decimal[suffix];
    else if (suffix) exp10 = Number(suffix.slice(1));
    if (exp10 >= 0) num *= 10n ** BigInt(exp10);
    else den *= 10n ** BigInt(-exp10);
    return new Quantity(num, den);
  }

  /** Whether `text` parses as a quantity. */
  public static isValid(text: string): boolean {
    try {
      Quantity.parse(text);
      return true;
    } catch {
      return false;
    }
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

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
