/**
 * JSON helpers shared by the write helpers (private module).
 */
import * as crypto from 'crypto';
import { deepEqual, isObject } from '../lib/apimachinery/json';

export { deepEqual };

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Key-order independent serialisation: keys sorted, undefined members left out, undefined array
 * elements as null. Built by appending to one string (no intermediate arrays): it runs on every
 * reconcile that applies an owned object.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  if (isObject(value)) {
    let out = '{';
    for (const key of Object.keys(value).sort()) {
      const member = value[key];
      if (member === undefined) continue;
      out += (out.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + canonicalJson(member);
    }
    return out + '}';
  }
  return JSON.stringify(value ?? null);
}

/** Short sha256 of the canonical JSON. One-shot `crypto.hash` (Node >= 20.12): no Hash object per call. */
export function hashJson(value: unknown): string {
  return crypto.hash('sha256', canonicalJson(value), 'hex').slice(0, 16);
}

/**
 * True if every field set in `desired` has the same value in `live` (live may have more fields,
 * e.g. server defaults). Arrays must have the same length and match element-wise.
 */
export function isSubset(desired: unknown, live: unknown): boolean {
  if (isObject(desired)) {
    if (!isObject(live)) return false;
    return Object.entries(desired).every(([k, v]) => v === undefined || isSubset(v, live[k]));
  }
  if (Array.isArray(desired)) {
    return Array.isArray(live) && live.length === desired.length && desired.every((v, i) => isSubset(v, live[i]));
  }
  return desired === live;
}

/** An RFC 7386 merge patch turning `from` into `to` (removed keys become null). */
export function createMergePatch(from: unknown, to: unknown): unknown {
  if (!isObject(from) || !isObject(to)) return to;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(from)) if (!(key in to) || to[key] === undefined) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    if (value === undefined) continue;
    if (!(key in from)) {
      patch[key] = value;
    } else if (!deepEqual(from[key], value)) {
      patch[key] = isObject(from[key]) && isObject(value) ? createMergePatch(from[key], value) : value;
    }
  }
  return patch;
}
