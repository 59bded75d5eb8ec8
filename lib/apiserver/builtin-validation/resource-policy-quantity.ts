import { Quantity } from '../../apimachinery/quantity';

/*
 * A quantity as the apiserver prints it in LimitRange and ResourceQuota messages: `Quantity.String()`, the canonical
 * form (CanonicalizeBytes of k8s.io/apimachinery's resource package: `2048Mi` is `2Gi`, `1000m` is `1`, `0.5Ki` is
 * `512`), and `Value()` / `MilliValue()` (rounded up) for LimitRange's ratio check.
 */

/** A decoded quantity: its exact value `unscaled × 10^exponent` and the format its suffix gave it. */
interface Exact {
  readonly unscaled: bigint;
  readonly exponent: number;
  readonly format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
}

const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_SUFFIX_OF: Readonly<Record<number, string>> = Object.fromEntries(
  Object.entries(DECIMAL).map(([s, e]) => [e, s]),
);
const BINARY_SUFFIX_OF: Readonly<Record<number, string>> = {
  0: '',
  1: 'Ki',
  2: 'Mi',
  3: 'Gi',
  4: 'Ti',
  5: 'Pi',
  6: 'Ei',
};

/** The text of a quantity field (the decoder takes JSON numbers as their text too), or undefined when not one. */
export function quantityText(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && Quantity.isValid(text.trim()) ? text.trim() : undefined;
}

function exactOf(text: string): Exact | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([a-zA-Z]*)([-+]?[0-9]*)$/.exec(text);
  if (!m) return undefined;
  const [, sign, whole, fraction = '', letters, exponentDigits] = m;
  const suffix = `${letters}${exponentDigits}`;
  let unscaled = BigInt(`${whole}${fraction}` || '0');
  let exponent = -fraction.length;
  let format: Exact['format'] = 'DecimalSI';
  if (suffix in DECIMAL) {
    exponent += DECIMAL[suffix];
  } else if (suffix in BINARY) {
    unscaled *= 2n ** BigInt(BINARY[suffix]);
    format = 'BinarySI';
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    exponent += Number(suffix.slice(1));
    format = 'DecimalExponent';
  } else {
    return undefined;
  }
  // ParseQuantity rounds a non-zero value up (away from zero) to nano precision
  if (exponent < -9 && unscaled !== 0n) {
    const d = 10n ** BigInt(-9 - exponent);
    unscaled = (unscaled + d - 1n) / d;
    exponent = -9;
  }
  if (sign === '-') unscaled = -unscaled;
  return { unscaled, exponent, format };
}

/** `Quantity.String()` of a quantity's text (the text itself when it is not one this port reads). @internal */
export function canonicalQuantity(text: string): string {
  const q = exactOf(text);
  if (!q) return text;
  if (q.unscaled === 0n) return '0';
  const abs = q.unscaled < 0n ? -q.unscaled : q.unscaled;
  if (q.format === 'BinarySI' && !lessThan1024(abs, q.exponent)) {
    const integer = integerOf(q.unscaled, q.exponent);
    if (integer !== undefined) {
      let amount = integer;
      let times = 0;
      while (amount % 1024n === 0n && times < 6) {
        amount /= 1024n;
        times++;
      }
      return `${amount}${BINARY_SUFFIX_OF[times]}`;
    }
  }
  // AsCanonicalBytes: the factors of ten into the exponent, then the exponent down to a multiple of three
  let amount = q.unscaled;
  let exponent = q.exponent;
  while (amount % 10n === 0n) {
    amount /= 10n;
    exponent++;
  }
  while (((exponent % 3) + 3) % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  if (q.format === 'DecimalExponent') return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
  return `${amount}${DECIMAL_SUFFIX_OF[exponent] ?? `e${exponent}`}`;
}

function lessThan1024(abs: bigint, exponent: number): boolean {
  return exponent >= 0 ? abs * 10n ** BigInt(exponent) < 1024n : abs < 1024n * 10n ** BigInt(-exponent);
}

function integerOf(unscaled: bigint, exponent: number): bigint | undefined {
  if (exponent >= 0) return unscaled * 10n ** BigInt(exponent);
  const d = 10n ** BigInt(-exponent);
  return unscaled % d === 0n ? unscaled / d : undefined;
}

/** `ScaledValue(scale)`: the value in units of 10^scale, rounded up (away from zero). */
function scaledValue(text: string, scale: number): bigint {
  const q = exactOf(text);
  if (!q) return 0n;
  const shift = q.exponent - scale;
  if (shift >= 0) return q.unscaled * 10n ** BigInt(shift);
  const d = 10n ** BigInt(-shift);
  const abs = q.unscaled < 0n ? -q.unscaled : q.unscaled;
  const up = (abs + d - 1n) / d;
  return q.unscaled < 0n ? -up : up;
}

/** `Quantity.Value()`. @internal */
export function quantityValue(text: string): bigint {
  return scaledValue(text, 0);
}

/** `Quantity.MilliValue()`. @internal */
export function quantityMilliValue(text: string): bigint {
  return scaledValue(text, -3);
}
