/** What the sharding suites' members write (ConfigMaps they mark), and the audit of who wrote what when. */

export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };

/** One write of a reconcile: the member, the object, and the span of the reconcile that made it (ms since epoch). */
export interface ShardWrite {
  member: string;
  key: string;
  start: number;
  end: number;
}

/** Pairs of writes to one object by two members whose reconciles overlapped in time: none may exist. */
export function overlappingWrites(writes: readonly ShardWrite[]): ShardWrite[][] {
  const byKey = new Map<string, ShardWrite[]>();
  for (const w of writes) byKey.set(w.key, [...(byKey.get(w.key) ?? []), w]);
  const found: ShardWrite[][] = [];
  for (const list of byKey.values()) {
    for (const a of list) {
      for (const b of list) if (a.member < b.member && a.start < b.end && b.start < a.end) found.push([a, b]);
    }
  }
  return found;
}
