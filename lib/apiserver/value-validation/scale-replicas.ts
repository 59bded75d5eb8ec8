import { goNumber } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { ScaleSubresourceSpec } from '../crd-manifest';

/**
 * The scale subresource's checks on create (apiextensions' customResourceStrategy.validateScaleSpec/Status):
 * the value at specReplicasPath, when present, is an integer from 0 to 2^31-1; so is the one at statusReplicasPath
 * (not checked with the status subresource, whose status is dropped on create); the value at labelSelectorPath, when
 * present, is a string. The path is the one written in the CRD (with its leading dot), as the apiserver reports it.
 *
 * @internal
 */
export function checkScaleReplicas(scale: ScaleSubresourceSpec, object: unknown, statusSubresource: boolean): Issue[] {
  const issues: Issue[] = [];
  const paths = [scale.specReplicasPath, ...(statusSubresource ? [] : [scale.statusReplicasPath])];
  for (const p of paths) {
    const found = at(object, p);
    if (found.notAMap) {
      issues.push({ path: p, message: `Invalid value: 0: ${found.notAMap}`, value: found.value });
      continue;
    }
    const value = found.value;
    if (value === undefined) continue;
    const error = replicasError(p, value);
    if (error) issues.push({ path: p, message: `Invalid value: ${error.shown}: ${error.detail}`, value });
  }
  const selectorPath = scale.labelSelectorPath;
  const selectorFound =
    selectorPath === undefined || (statusSubresource && /^\.?status\./.test(selectorPath))
      ? undefined
      : at(object, selectorPath);
  const selector = selectorFound?.value;
  if (selectorPath && selectorFound?.notAMap) {
    issues.push({ path: selectorPath, message: `Invalid value: "": ${selectorFound.notAMap}`, value: selector });
  } else if (selectorPath && selector !== undefined && typeof selector !== 'string') {
    issues.push({
      path: selectorPath,
      message: `Invalid value: "": ${accessorError(selectorPath, selector, 'string')}`,
      value: selector,
    });
  }
  return issues;
}

function replicasError(path: string, value: unknown): { shown: string; detail: string } | undefined {
  // unstructured.NestedInt64 fails on anything but an int64 (a JSON number with a fraction is a float64); 0 is shown
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    return { shown: '0', detail: accessorError(path, value, 'int64') };
  }
  if (value < 0) return { shown: String(value), detail: 'should be a non-negative integer' };
  if (value > 2147483647) return { shown: String(value), detail: 'should be less than or equal to 2147483647' };
  return undefined;
}

/** unstructured's `%v accessor error: %v is of the type %T, expected %s`. */
function accessorError(path: string, value: unknown, expected: string): string {
  return `.${path.replace(/^\./, '')} accessor error: ${goValue(value)} is of the type ${goTypeOf(value)}, expected ${expected}`;
}

/** The Go type of a value decoded into unstructured JSON: a whole number that fits is an int64 (as JSON.stringify writes it). */
function goTypeOf(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 2 ** 63 ? 'int64' : 'float64';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (v === null) return '<nil>';
  return 'map[string]interface {}';
}

/**
 * unstructured.NestedFieldNoCopy: the value at a dotted path, or the accessor error when a step on the way is there
 * but no object (`.spec.replicas accessor error: x is of the type string, expected map[string]interface{}`).
 */
function at(object: unknown, path: string): { value?: unknown; notAMap?: string } {
  const steps = path.replace(/^\./, '').split('.');
  let node = object;
  for (let i = 0; i < steps.length; i++) {
    if (node === undefined || node === null) return {};
    if (typeof node !== 'object' || Array.isArray(node)) {
      return {
        value: node,
        notAMap: `.${steps.slice(0, i + 1).join('.')} accessor error: ${goValue(node)} is of the type ${goTypeOf(node)}, expected map[string]interface{}`,
      };
    }
    node = (node as Record<string, unknown>)[steps[i]];
  }
  return { value: node };
}

/** Go's %v of a decoded JSON value: lists as `[a b]`, maps as `map[k:v]` (keys sorted), nil as `<nil>`, floats as %g. */
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v === null) return '<nil>';
  if (typeof v === 'number') return goNumber(v);
  if (typeof v === 'object') {
    return `map[${Object.keys(v)
      .sort()
      .map((k) => `${k}:${goValue((v as Record<string, unknown>)[k])}`)
      .join(' ')}]`;
  }
  return String(v);
}
