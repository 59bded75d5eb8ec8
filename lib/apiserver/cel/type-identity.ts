import { CelType } from './cel-types';

/**
 * A number naming a CEL type by its content: two types get the same number exactly when they are equal in every
 * property (kind, sizes, names, element, key, value and field types, field names in their order). Schemas repeat
 * whole subtrees (every version of a CRD, shared Kubernetes types), so equal types of distinct schema nodes are
 * recognised without comparing them again: each type object is named once, from the names of its parts.
 */
export function typeIdentity(t: CelType): number {
  let id = ids.get(t);
  if (id !== undefined) return id;
  const record = t as unknown as Record<string, unknown>;
  // every own property, generically, so that a property added to CelType one day cannot be left out of the key
  let key = '';
  for (const k of Object.keys(record)) {
    const v = record[k];
    key += `|${k}=`;
    if (k === 'fields') {
      const fields = v as Record<string, CelType>;
      for (const name of Object.keys(fields)) key += `${JSON.stringify(name)}:${typeIdentity(fields[name])},`;
    } else if (typeof v === 'object' && v !== null) {
      key += `#${typeIdentity(v as CelType)}`;
    } else {
      key += typeof v === 'string' ? JSON.stringify(v) : String(v);
    }
  }
  id = interned.get(key);
  if (id === undefined) {
    // forgetting keys only loses sharing: numbers are never reused, so a number still names one content
    if (interned.size >= INTERNED_LIMIT) interned.clear();
    interned.set(key, (id = nextId++));
  }
  ids.set(t, id);
  return id;
}

const ids = new WeakMap<CelType, number>();
const interned = new Map<string, number>();
const INTERNED_LIMIT = 100_000;
let nextId = 1;
