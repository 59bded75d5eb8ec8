import { isInt64 } from '../../apimachinery/field-value';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { isKnownFormat } from '../schema/formats';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * kube-openapi's type validator (`validate/type.go`) as the apiextensions apiserver runs it, quirks included:
 * with a format the apiserver keeps, a string or a list passes the type check of any non-numeric type (so a list
 * is stored in a `type: string, format: date-time` field), and another mismatch names the format and Go's type
 * (`must be of type date-time: "int64"`). Which formats are kept depends on the version: up to 1.35 every known
 * string format on any type; from 1.36 string formats on strings and numeric formats (int32, int64, float,
 * double) on numbers, whose ranges 1.36 also enforces.
 *
 * @internal
 */
export interface TypeVerdict {
  /** The type error, as the apiserver's message (without the path). */
  readonly error?: { readonly message: string; readonly value: unknown };
  /** The value passed only through the quirk: its type is not the schema's, so nothing else is checked on it. */
  readonly quirk?: boolean;
}

export function checkValueType(v: unknown, s: JSONSchemaProps, at: string, version: KubernetesVersion): TypeVerdict {
  const type = s.type as string;
  const [schType, goFormat] = goTypeOf(v);
  const format = keptFormat(s, version);
  const kind = typeof v === 'string' ? 'string' : Array.isArray(v) ? 'slice' : 'other';
  const isFloatInt = schType === 'number' && isFloat64AJsonInteger(v as number) && type === 'integer';
  const isIntFloat = schType === 'integer' && type === 'number';
  const sameType = type === schType || isFloatInt || isIntFloat;
  if (kind === 'other' && format !== '' && !(sameType || format === goFormat)) {
    return {
      error: {
        message: `Invalid value: "${goFormat}": ${at} in body must be of type ${format}: "${goFormat}"`,
        value: v,
      },
    };
  }
  if (type !== 'number' && type !== 'integer' && format !== '' && kind !== 'other') {
    return sameType ? {} : { quirk: true };
  }
  if (!sameType) {
    return {
      error: { message: `Invalid value: "${schType}": ${at} in body must be of type ${type}: "${schType}"`, value: v },
    };
  }
  return {};
}

/**
 * 1.36's range check of numeric formats (kube-openapi's IsValueValidAgainstRange), reported without a field path
 * (`<nil>`), as the apiserver does: of the value (`Checked value must be of type integer with format int32 in spec.x`),
 * and of a bound (`prefix` `Minimum boundary`, `Maximum boundary`, `MultipleOf`). An integer field's default format
 * is int64: a fraction, or a float64 beyond int64, does not fit.
 */
export function numericFormatError(
  v: unknown,
  s: JSONSchemaProps,
  at: string,
  version: KubernetesVersion,
  prefix = 'Checked',
): string | undefined {
  if (typeof v !== 'number' || !since(version, 'numericFormatRanges')) return undefined;
  if (s.type !== 'integer' && s.type !== 'number') return undefined;
  const format = keptFormat(s, version);
  const fits = RANGES[format] ?? (s.type === 'integer' ? RANGES.int64 : () => true);
  if (fits(v)) return undefined;
  return `Invalid value: "": ${prefix} value must be of type ${s.type} ${format ? `with format ${format}` : '(default format)'} in ${at}`;
}

const MAX_FLOAT32 = 3.4028234663852886e38;
const RANGES: Record<string, (v: number) => boolean> = {
  int32: (v) => Number.isInteger(v) && v >= -(2 ** 31) && v <= 2 ** 31 - 1,
  // what strconv.ParseInt reads of the number: an int64, or a float64 written without fraction within int64
  int64: (v) => isInt64(v),
  float: (v) => Math.abs(v) <= MAX_FLOAT32,
};

const NUMERIC_FORMATS: Record<string, readonly string[]> = { integer: ['int32', 'int64'], number: ['float', 'double'] };

/** The format left after apiextensions strips the ones it does not support (`''` when none). */
function keptFormat(s: JSONSchemaProps, version: KubernetesVersion): string {
  const format = s.format ?? '';
  if (format === '') return '';
  if (!since(version, 'formatsOnlyOnTheirType')) return isKnownFormat(format) ? format : '';
  if (s.type === 'string') return isKnownFormat(format) ? format : '';
  return NUMERIC_FORMATS[s.type as string]?.includes(format) ? format : '';
}

/** The type kube-openapi infers for a decoded JSON value, and the Go type it names as the format. */
function goTypeOf(v: unknown): [string, string] {
  if (Array.isArray(v)) return ['array', ''];
  switch (typeof v) {
    case 'string':
      return ['string', ''];
    case 'boolean':
      return ['boolean', ''];
    // the decoder makes int64 of integers that fit, float64 of the rest
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? ['integer', 'int64'] : ['number', 'float64'];
    default:
      return ['object', ''];
  }
}

/**
 * swag.IsFloat64AJSONInteger: within ±2^53 and integral, or (positive) within a relative 1e-9 of the integer below
 * (`5.0000000001` counts as an integer).
 */
function isFloat64AJsonInteger(f: number): boolean {
  if (!Number.isFinite(f) || Math.abs(f) > 2 ** 53) return false;
  if (Number.isInteger(f)) return true;
  if (f < 0) return false; // Go's uint64 of a negative float is no nearby integer
  const g = Math.trunc(f);
  if (g === 0) return false;
  return (f - g) / Math.min(f + g, Number.MAX_VALUE) < 1e-9;
}
