import { Issue } from './issue';

/**
 * Field paths and issue constructors in the apiserver's own notation
 * (`k8s.io/apimachinery/pkg/util/validation/field`): `a.b`, `a[0]`, `a[key]`,
 * and messages prefixed with the error type (`Required value: …`, `Invalid value: …`).
 */

/** `parent.name` (or `name` at the root). @internal */
export function child(parent: string, ...names: string[]): string {
  return names.reduce((p, n) => (p ? `${p}.${n}` : n), parent);
}

/** `parent[i]`. @internal */
export function index(parent: string, i: number): string {
  return `${parent}[${i}]`;
}

/** `parent[key]`, the notation for map entries such as `properties[spec]`. @internal */
export function key(parent: string, k: string): string {
  return `${parent}[${k}]`;
}

/** @internal */
export function required(path: string, detail = ''): Issue {
  return { path, message: detail ? `Required value: ${detail}` : 'Required value' };
}

/** @internal */
export function invalid(path: string, value: unknown, detail: string): Issue {
  return { path, message: `Invalid value: ${detail}`, value };
}

/** @internal */
export function forbidden(path: string, detail: string): Issue {
  return { path, message: `Forbidden: ${detail}` };
}

/** @internal */
export function notSupported(path: string, value: unknown, supported: readonly string[]): Issue {
  return {
    path,
    message: `Unsupported value: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
    value,
  };
}

/** @internal */
export function duplicate(path: string, value: unknown): Issue {
  return { path, message: 'Duplicate value', value };
}

/** @internal */
export function tooLong(path: string, detail: string): Issue {
  return { path, message: `Too long: ${detail}` };
}

/** @internal */
export function warning(issue: Issue): Issue {
  return { ...issue, severity: 'warning' };
}

export { isObject } from './json';
