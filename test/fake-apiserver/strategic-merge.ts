/**
 * Strategic merge patch for built-in kinds (kubectl's client-side apply, client-go patches): like a JSON merge
 * patch, except that lists with a patch merge key (containers by name, ports by containerPort/port, ...) are
 * merged item by item, primitive "merge" lists (finalizers) are unioned, and the `$patch`, `$setElementOrder`,
 * `$deleteFromPrimitiveList` and `$retainKeys` directives are honoured.
 */
import { clone, deepEqual, isObject } from './json-util';

/** patchMergeKey of the Kubernetes API types' `patchStrategy:"merge"` lists. */
const MERGE_KEYS: Record<string, string[]> = {
  containers: ['name'], initContainers: ['name'], ephemeralContainers: ['name'], volumes: ['name'], env: ['name'],
  volumeMounts: ['mountPath'], volumeDevices: ['devicePath'], imagePullSecrets: ['name'], ownerReferences: ['uid'],
  conditions: ['type'], hostAliases: ['ip'], ports: ['containerPort', 'port'], resourceClaims: ['name'],
  topologySpreadConstraints: ['topologyKey'], readinessGates: ['conditionType'],
};
/** Primitive lists with patchStrategy merge. */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

function keyOf(item: any, candidates: string[]): string | undefined {
  if (!isObject(item)) return undefined;
  const k = candidates.find((c) => item[c] !== undefined);
  return k === undefined ? undefined : `${k}=${JSON.stringify(item[k])}`;
}

export function strategicMergePatch(target: any, patch: any): any {
  return mergeMap(isObject(target) ? target : {}, patch);
}

function mergeMap(target: Record<string, any>, patch: Record<string, any>): any {
  if (patch.$patch === 'replace') {
    const { $patch: _ignored, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, any> = clone(target);
  const retain: string[] | undefined = Array.isArray(patch.$retainKeys) ? patch.$retainKeys : undefined;
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$retainKeys' || k === '$patch' || k.startsWith('$setElementOrder/')) continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = out[field].filter((x: any) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    if (Array.isArray(v)) out[k] = mergeList(k, out[k], v);
    else if (isObject(v)) {
      const merged = mergeMap(isObject(out[k]) ? out[k] : {}, v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else out[k] = v;
  }
  for (const [k, order] of Object.entries(patch)) {
    if (!k.startsWith('$setElementOrder/') || !Array.isArray(order)) continue;
    const field = k.slice('$setElementOrder/'.length);
    if (Array.isArray(out[field])) out[field] = reorder(field, out[field], order);
  }
  if (retain) for (const k of Object.keys(out)) if (!retain.includes(k)) delete out[k];
  return out;
}

function mergeList(field: string, current: any, patch: any[]): any[] {
  const keys = MERGE_KEYS[field];
  const cur: any[] = Array.isArray(current) ? current : [];
  if (MERGED_PRIMITIVE_LISTS.has(field)) return [...cur, ...patch.filter((p) => !cur.some((c) => deepEqual(c, p)))];
  if (!keys || !patch.every((p) => isObject(p))) return stripDirectives(patch);
  if (patch.some((p) => p.$patch === 'replace')) return stripDirectives(patch.filter((p) => p.$patch !== 'replace'));
  const out = clone(cur);
  for (const item of patch) {
    const key = keyOf(item, keys);
    const idx = key === undefined ? -1 : out.findIndex((c) => keyOf(c, keys) === key);
    if (item.$patch === 'delete') {
      if (idx >= 0) out.splice(idx, 1);
      continue;
    }
    if (idx >= 0) out[idx] = mergeMap(out[idx], item);
    else out.push(stripDirectives(item));
  }
  return out;
}

function reorder(field: string, list: any[], order: any[]): any[] {
  const keys = MERGE_KEYS[field];
  const id = (x: any) => (keys ? keyOf(x, keys) : JSON.stringify(x));
  const pos = new Map(order.map((o, i) => [id(o), i]));
  const ordered = list.filter((x) => pos.has(id(x))).sort((a, b) => pos.get(id(a))! - pos.get(id(b))!);
  return [...ordered, ...list.filter((x) => !pos.has(id(x)))];
}

function stripDirectives(v: any): any {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isObject(v)) return v;
  const out: Record<string, any> = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}
