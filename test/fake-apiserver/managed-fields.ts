/**
 * A compact model of structured-merge-diff field ownership: `metadata.managedFields` (FieldsV1),
 * Update-operation tracking, and server-side apply (conflicts, force, merge, removal of dropped fields).
 * Paths are lists of FieldsV1 elements (`f:spec`, `k:{"name":"c"}`, `v:"x"`), keyed by joining with SEP.
 */
import { clone, deepEqual, isObject, nowTimestamp } from './json-util';

const SEP = '\u0001';
const MEMBER_MARK = '\u0002'; // value marker for non-leaf members (maps, list items)

export type ListType = 'atomic' | 'set' | { mapKeys: string[] };

/** Resolves the list type of a field: from the CRD schema when there is one, else from built-in conventions. */
export type ListTypeResolver = (fieldName: string, schema: any) => ListType;

const BUILTIN_MAP_LISTS: Record<string, string[]> = {
  containers: ['name'], initContainers: ['name'], ephemeralContainers: ['name'], volumes: ['name'], env: ['name'],
  volumeMounts: ['mountPath'], imagePullSecrets: ['name'], ownerReferences: ['uid'], conditions: ['type'],
  tolerations: [], envFrom: [],
};

export const defaultListType: ListTypeResolver = (fieldName, schema) => {
  if (schema) {
    const t = schema['x-kubernetes-list-type'];
    if (t === 'set') return 'set';
    if (t === 'map') return { mapKeys: schema['x-kubernetes-list-map-keys'] ?? [] };
    return 'atomic';
  }
  if (fieldName === 'finalizers') return 'set';
  const keys = BUILTIN_MAP_LISTS[fieldName];
  return keys && keys.length ? { mapKeys: keys } : 'atomic';
};

/** Which top-level parts of an object a write may touch. */
export type Scope = 'main' | 'main-with-status' | 'status';

const IGNORED_META = new Set(['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'managedFields', 'selfLink', 'generateName']);

/** path key -> leaf value (JSON) or MEMBER_MARK for intermediate members */
export type FieldValues = Map<string, string>;

export function fieldValues(obj: any, scope: Scope, schema: any, intermediates: boolean): FieldValues {
  const out: FieldValues = new Map();
  if (!isObject(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (scope === 'status' && k !== 'status') continue;
    if (scope === 'main' && k === 'status') continue;
    const childSchema = schema?.properties?.[k];
    if (k === 'metadata' && isObject(v)) {
      for (const [mk, mv] of Object.entries(v)) {
        if (IGNORED_META.has(mk) || scope === 'status') continue;
        walkValue(mv, [`f:metadata`, `f:${mk}`], mk, undefined, intermediates, out);
      }
      continue;
    }
    walkValue(v, [`f:${k}`], k, childSchema, intermediates, out);
  }
  return out;
}

function walkValue(v: any, path: string[], fieldName: string, schema: any, intermediates: boolean, out: FieldValues): void {
  const key = path.join(SEP);
  if (v === undefined) return;
  if (isObject(v) && !(schema && schema['x-kubernetes-map-type'] === 'atomic')) {
    const entries = Object.entries(v);
    if (entries.length === 0) {
      out.set(key, '{}');
      return;
    }
    if (intermediates) out.set(key, MEMBER_MARK);
    for (const [k, child] of entries) {
      const cs = schema?.properties?.[k] ?? (isObject(schema?.additionalProperties) ? schema.additionalProperties : undefined);
      walkValue(child, [...path, `f:${k}`], k, cs, intermediates, out);
    }
    return;
  }
  if (Array.isArray(v)) {
    const lt = defaultListType(fieldName, schema);
    if (lt === 'atomic' || v.length === 0) {
      out.set(key, JSON.stringify(v));
      return;
    }
    if (intermediates) out.set(key, MEMBER_MARK);
    for (const item of v) {
      if (lt === 'set') out.set([...path, `v:${JSON.stringify(item)}`].join(SEP), JSON.stringify(item));
      else {
        const itemPath = [...path, itemKey(item, lt.mapKeys)];
        out.set(itemPath.join(SEP), MEMBER_MARK);
        if (isObject(item)) {
          for (const [k, child] of Object.entries(item)) {
            const cs = schema?.items?.properties?.[k];
            walkValue(child, [...itemPath, `f:${k}`], k, cs, intermediates, out);
          }
        }
      }
    }
    return;
  }
  out.set(key, JSON.stringify(v));
}

function itemKey(item: any, keys: string[]): string {
  const k: Record<string, any> = {};
  for (const name of [...keys].sort()) if (isObject(item) && item[name] !== undefined) k[name] = item[name];
  return `k:${JSON.stringify(k)}`;
}

/** FieldsV1 JSON -> set of path keys. */
export function parseFieldsV1(fields: any, prefix: string[] = [], out = new Set<string>()): Set<string> {
  if (!isObject(fields)) return out;
  const entries = Object.entries(fields);
  if (entries.length === 0 && prefix.length) out.add(prefix.join(SEP));
  for (const [k, v] of entries) {
    if (k === '.') out.add(prefix.join(SEP));
    else parseFieldsV1(v, [...prefix, k], out);
  }
  return out;
}

/** Set of path keys -> FieldsV1 JSON (members with children get a "." entry). */
export function renderFieldsV1(set: Set<string>): any {
  interface Node { member: boolean; children: Map<string, Node> }
  const root: Node = { member: false, children: new Map() };
  for (const key of set) {
    let node = root;
    for (const el of key.split(SEP)) {
      let next = node.children.get(el);
      if (!next) {
        next = { member: false, children: new Map() };
        node.children.set(el, next);
      }
      node = next;
    }
    node.member = true;
  }
  const render = (n: Node): any => {
    const o: Record<string, any> = {};
    const keys = [...n.children.keys()];
    if (n.member && keys.length) o['.'] = {};
    for (const k of keys.sort()) o[k] = render(n.children.get(k)!);
    return o;
  };
  return render(root);
}

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: any;
  subresource?: string;
}

interface Entry {
  manager: string;
  operation: 'Update' | 'Apply';
  apiVersion: string;
  time: string;
  subresource?: string;
  set: Set<string>;
}

function decode(entries: any[] | undefined): Entry[] {
  return (entries ?? []).filter(isObject).map((e: any) => ({
    manager: e.manager ?? '', operation: e.operation === 'Apply' ? 'Apply' : 'Update', apiVersion: e.apiVersion ?? '',
    time: e.time ?? nowTimestamp(), subresource: e.subresource || undefined, set: parseFieldsV1(e.fieldsV1 ?? {}),
  }));
}

function encode(entries: Entry[]): ManagedFieldsEntry[] | undefined {
  const kept = entries.filter((e) => e.set.size > 0);
  kept.sort((p, q) => (p.operation !== q.operation ? (p.operation < q.operation ? -1 : 1)
    : p.time !== q.time ? (p.time < q.time ? -1 : 1)
      : p.manager !== q.manager ? (p.manager < q.manager ? -1 : 1)
        : (p.subresource ?? '') < (q.subresource ?? '') ? -1 : 1));
  if (kept.length === 0) return undefined;
  return kept.map((e) => {
    const out: ManagedFieldsEntry = { apiVersion: e.apiVersion, fieldsType: 'FieldsV1', fieldsV1: renderFieldsV1(e.set), manager: e.manager, operation: e.operation, time: e.time };
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

export interface WriteContext {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource?: string;
  readonly scope: Scope;
  readonly schema?: any;
}

function sameEntry(e: Entry, ctx: WriteContext, op: 'Update' | 'Apply'): boolean {
  return e.manager === ctx.manager && e.operation === op && (e.subresource ?? '') === (ctx.subresource ?? '') && e.apiVersion === ctx.apiVersion;
}

/** managedFields after an Update-operation write (create, PUT, non-apply PATCH). */
export function trackUpdate(oldObj: any | undefined, newObj: any, ctx: WriteContext): ManagedFieldsEntry[] | undefined {
  const entries = decode(oldObj?.metadata?.managedFields);
  const before = oldObj ? fieldValues(oldObj, ctx.scope, ctx.schema, true) : new Map<string, string>();
  const after = fieldValues(newObj, ctx.scope, ctx.schema, true);
  const changed = new Set<string>();
  for (const [k, v] of after) if (before.get(k) !== v) changed.add(k);
  const removed = new Set<string>([...before.keys()].filter((k) => !after.has(k)));
  let mine = entries.find((e) => sameEntry(e, ctx, 'Update'));
  for (const e of entries) {
    if (e === mine) continue;
    for (const k of [...e.set]) if (changed.has(k) || removed.has(k)) e.set.delete(k);
  }
  if (changed.size > 0 || mine) {
    if (!mine) {
      mine = { manager: ctx.manager, operation: 'Update', apiVersion: ctx.apiVersion, time: nowTimestamp(), subresource: ctx.subresource, set: new Set() };
      entries.push(mine);
    }
    for (const k of removed) mine.set.delete(k);
    for (const k of changed) mine.set.add(k);
    if (changed.size > 0) mine.time = nowTimestamp();
  }
  return encode(entries);
}

export interface ApplyConflict {
  readonly manager: string;
  readonly apiVersion: string;
  readonly path: string;
}

export interface ApplyResult {
  readonly object?: any;
  readonly managedFields?: ManagedFieldsEntry[];
  readonly conflicts: ApplyConflict[];
}

/** Server-side apply of `applied` onto `current` (undefined when creating). */
export function serverSideApply(current: any | undefined, applied: any, ctx: WriteContext, force: boolean): ApplyResult {
  const entries = decode(current?.metadata?.managedFields);
  const appliedValues = fieldValues(applied, ctx.scope, ctx.schema, false);
  const currentValues = current ? fieldValues(current, ctx.scope, ctx.schema, true) : new Map<string, string>();
  const mine = entries.find((e) => sameEntry(e, ctx, 'Apply'));
  const conflicts: ApplyConflict[] = [];
  const conflicting = new Set<string>();
  for (const e of entries) {
    if (e === mine) continue;
    for (const k of e.set) {
      if (appliedValues.has(k) && currentValues.has(k) && currentValues.get(k) !== appliedValues.get(k)) {
        conflicts.push({ manager: e.manager, apiVersion: e.apiVersion, path: toDotPath(k) });
        conflicting.add(k);
      }
    }
  }
  if (conflicts.length && !force) return { conflicts };
  for (const e of entries) if (e !== mine) for (const k of conflicting) e.set.delete(k);

  let merged = current ? mergeApplied(clone(current), applied, ctx) : clone(applied);
  if (mine && current) {
    const othersOwn = new Set<string>();
    for (const e of entries) if (e !== mine) for (const k of e.set) othersOwn.add(k);
    const dropped = [...mine.set].filter((k) => !appliedValues.has(k) && !othersOwn.has(k));
    for (const k of dropped.sort((a, b) => b.length - a.length)) merged = removePath(merged, k.split(SEP));
  }
  const entry: Entry = mine ?? { manager: ctx.manager, operation: 'Apply', apiVersion: ctx.apiVersion, time: nowTimestamp(), subresource: ctx.subresource, set: new Set() };
  entry.set = new Set(appliedValues.keys());
  entry.time = nowTimestamp();
  if (!mine) entries.push(entry);
  return { object: merged, managedFields: encode(entries), conflicts: [] };
}

/** `f:spec` `f:replicas` -> `.spec.replicas`, `k:{"name":"c"}` -> `[name="c"]` (SMD's own spelling). */
export function toDotPath(key: string): string {
  return key.split(SEP).map((el) => {
    if (el.startsWith('f:')) return `.${el.slice(2)}`;
    if (el.startsWith('k:')) {
      const k = JSON.parse(el.slice(2));
      return `[${Object.entries(k).map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(',')}]`;
    }
    if (el.startsWith('v:')) return `[=${el.slice(2)}]`;
    return el;
  }).join('');
}

function mergeApplied(target: any, applied: any, ctx: WriteContext): any {
  const out = clone(target);
  for (const [k, v] of Object.entries(applied ?? {})) {
    if (k === 'apiVersion' || k === 'kind') continue;
    if (ctx.scope === 'status' && k !== 'status') continue;
    if (ctx.scope === 'main' && k === 'status') continue;
    if (k === 'metadata' && isObject(v)) {
      out.metadata = out.metadata ?? {};
      for (const [mk, mv] of Object.entries(v)) {
        if (IGNORED_META.has(mk)) continue;
        out.metadata[mk] = mergeValue(out.metadata[mk], mv, mk, undefined);
      }
      continue;
    }
    out[k] = mergeValue(out[k], v, k, ctx.schema?.properties?.[k]);
  }
  return out;
}

function mergeValue(cur: any, applied: any, fieldName: string, schema: any): any {
  if (isObject(applied) && isObject(cur) && !(schema && schema['x-kubernetes-map-type'] === 'atomic')) {
    const out = { ...cur };
    for (const [k, v] of Object.entries(applied)) {
      const cs = schema?.properties?.[k] ?? (isObject(schema?.additionalProperties) ? schema.additionalProperties : undefined);
      out[k] = mergeValue(cur[k], v, k, cs);
    }
    return out;
  }
  if (Array.isArray(applied) && Array.isArray(cur)) {
    const lt = defaultListType(fieldName, schema);
    if (lt === 'set') return [...cur, ...applied.filter((a) => !cur.some((c) => deepEqual(c, a)))];
    if (lt !== 'atomic') {
      const out = [...cur];
      for (const item of applied) {
        const idx = out.findIndex((c) => itemKey(c, lt.mapKeys) === itemKey(item, lt.mapKeys));
        if (idx >= 0) out[idx] = mergeValue(out[idx], item, '', schema?.items);
        else out.push(item);
      }
      return out;
    }
  }
  return clone(applied);
}

function removePath(obj: any, path: string[]): any {
  if (path.length === 0) return obj;
  const [head, ...rest] = path;
  if (head.startsWith('f:') && isObject(obj)) {
    const name = head.slice(2);
    if (!(name in obj)) return obj;
    if (rest.length === 0) delete obj[name];
    else obj[name] = removePath(obj[name], rest);
    return obj;
  }
  if (Array.isArray(obj) && (head.startsWith('k:') || head.startsWith('v:'))) {
    const idx = head.startsWith('v:')
      ? obj.findIndex((x) => JSON.stringify(x) === head.slice(2))
      : obj.findIndex((x) => itemKey(x, Object.keys(JSON.parse(head.slice(2)))) === head);
    if (idx < 0) return obj;
    if (rest.length === 0) obj.splice(idx, 1);
    else obj[idx] = removePath(obj[idx], rest);
  }
  return obj;
}

/** The apiserver's default field manager: the user agent up to the first '/'. */
export function managerFromUserAgent(ua: string | undefined): string {
  return (ua ?? 'unknown').split('/')[0].slice(0, 128) || 'unknown';
}
