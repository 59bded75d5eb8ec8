/**
 * JSON value helpers shared by lib, the runtime and the controllers: one definition of "an object" and of
 * "the same JSON value", so the library's checks and the controllers' change detection agree.
 */

/** A plain object (not an array, not null). @internal */
export function isObject(x: unknown): x is Record<string, any> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Whether two JSON values are equal: object key order ignored, `undefined` members ignored (they are not
 * serialized), `undefined` equal to `null` (both serialize as null in arrays).
 * @internal
 */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || a === null) return b === undefined || b === null;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObject(a)) {
    if (!isObject(b)) return false;
    const keys = Object.keys(a).filter((k) => a[k] !== undefined);
    return (
      keys.length === Object.keys(b).filter((k) => b[k] !== undefined).length &&
      keys.every((k) => deepEqual(a[k], b[k]))
    );
  }
  return false;
}
