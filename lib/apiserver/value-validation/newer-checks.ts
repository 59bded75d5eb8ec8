import { isInt64 } from '../../apimachinery/field-value';
import { JSONSchemaProps } from '../schema/json-schema-props';

/**
 * Whether a value reaches anything 1.36 checks otherwise than the versions before (the verdict changes of
 * `APISERVER_CHANGES` at 1.36: numeric format ranges and bounds, formats kept only on their types, `mac` and `uri`):
 * a value under a node with a `format`, a number under an integer node that is no int64, a bound that is no int64 on
 * an integer node, or any branch (`allOf`, `anyOf`, `oneOf`, `not`). Where it is false, a resource without issues on
 * 1.35 has none on 1.36 either, so synth need not check it twice (test/custom-resource/newer-checks.test.ts checks
 * that on the generated corpus).
 *
 * @internal
 */
export function reachesNewerChecks(s: JSONSchemaProps | undefined, v: unknown): boolean {
  if (!s || v === undefined) return false;
  if (s.format !== undefined || s.allOf || s.anyOf || s.oneOf || s.not) return true;
  if (s.type === 'integer') {
    if ([s.minimum, s.maximum, s.multipleOf].some((b) => b !== undefined && !isInt64(b))) return true;
    if (typeof v === 'number' && !isInt64(v)) return true;
  }
  if (Array.isArray(v)) return v.some((item) => reachesNewerChecks(s.items, item));
  if (v !== null && typeof v === 'object') {
    const ap = s.additionalProperties;
    return Object.entries(v as Record<string, unknown>).some(([k, x]) =>
      reachesNewerChecks(s.properties?.[k] ?? (ap && typeof ap === 'object' ? ap : undefined), x),
    );
  }
  return false;
}
