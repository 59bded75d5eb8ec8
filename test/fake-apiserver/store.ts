/**
 * Versioned object storage like etcd + the watch cache: one global resourceVersion counter,
 * objects grouped by storage key (group/plural), and per resource (like the apiserver's per-type watch
 * cache) a bounded event history for resuming watches.
 */
import { clone } from './json-util';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredEvent {
  readonly rv: number;
  readonly storageKey: string;
  readonly type: EventType;
  readonly object: any;
  /** state before the change (MODIFIED/DELETED), for selector transitions */
  readonly oldObject?: any;
}

export type EventListener = (ev: StoredEvent) => void;

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  private rv: number;
  private readonly objects = new Map<string, Map<string, any>>();
  private readonly history = new Map<string, StoredEvent[]>();
  /** per storage key: events with rv > this are all in its history */
  private readonly minWatchable = new Map<string, number>();
  /** lower bound for keys without an entry in minWatchable (start, then last compaction) */
  private baseWatchableRv: number;
  /** continue tokens minted before this are expired */
  private compactedRv = 0;
  private readonly listeners = new Set<EventListener>();
  private readonly dropListeners = new Set<(storageKey: string) => void>();

  constructor(private readonly window: number, startRv = 1) {
    this.rv = startRv;
    this.baseWatchableRv = startRv;
  }

  get currentRv(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch of this resource can start from. */
  oldestWatchableRv(storageKey: string): number {
    return this.minWatchable.get(storageKey) ?? this.baseWatchableRv;
  }

  get compactionRv(): number {
    return this.compactedRv;
  }

  get(storageKey: string, key: string): any | undefined {
    const o = this.objects.get(storageKey)?.get(key);
    return o === undefined ? undefined : clone(o);
  }

  /** Objects of one resource sorted by key (namespace/name), optionally one namespace only. */
  list(storageKey: string, namespace?: string): Array<{ key: string; object: any }> {
    const m = this.objects.get(storageKey);
    if (!m) return [];
    const out: Array<{ key: string; object: any }> = [];
    for (const [key, object] of m) {
      if (namespace !== undefined && object.metadata?.namespace !== namespace) continue;
      out.push({ key, object: clone(object) });
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  /**
   * Objects as they were at resourceVersion `rv` (what etcd's MVCC gives a paged list), rebuilt by undoing
   * the newer events; falls back to the current state when the history no longer reaches back to `rv`.
   */
  listAt(storageKey: string, rv: number, namespace?: string): Array<{ key: string; object: any }> {
    if (rv >= this.rv || rv < this.oldestWatchableRv(storageKey)) return this.list(storageKey, namespace);
    const state = new Map<string, any>(this.objects.get(storageKey) ?? []);
    const history = this.history.get(storageKey) ?? [];
    for (let i = history.length - 1; i >= 0 && history[i].rv > rv; i--) {
      const ev = history[i];
      const key = objectKey(ev.object.metadata.namespace, ev.object.metadata.name);
      if (ev.type === 'ADDED' || ev.oldObject === undefined) state.delete(key);
      else state.set(key, ev.oldObject);
    }
    const out: Array<{ key: string; object: any }> = [];
    for (const [key, object] of state) {
      if (namespace !== undefined && object.metadata?.namespace !== namespace) continue;
      out.push({ key, object: clone(object) });
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  storageKeys(): string[] {
    return [...this.objects.keys()];
  }

  /** Writes an object (ADDED/MODIFIED) or removes it (DELETED); assigns and returns the new resourceVersion. */
  commit(storageKey: string, type: EventType, object: any): any {
    const key = objectKey(object.metadata.namespace, object.metadata.name);
    let m = this.objects.get(storageKey);
    if (!m) {
      m = new Map();
      this.objects.set(storageKey, m);
    }
    const oldObject = m.get(key);
    this.rv += 1;
    const stored = clone(object);
    stored.metadata.resourceVersion = String(this.rv);
    if (type === 'DELETED') m.delete(key);
    else m.set(key, stored);
    const ev: StoredEvent = { rv: this.rv, storageKey, type, object: stored, oldObject };
    let history = this.history.get(storageKey);
    if (!history) {
      history = [];
      this.history.set(storageKey, history);
    }
    history.push(ev);
    while (history.length > this.window) {
      const dropped = history.shift()!;
      this.minWatchable.set(storageKey, dropped.rv);
    }
    for (const l of [...this.listeners]) l(ev);
    return clone(stored);
  }

  /** Drops a resource's storage (CRD removal, after its own DELETED events); its watches are told to end. */
  dropResource(storageKey: string): void {
    this.objects.delete(storageKey);
    this.history.delete(storageKey);
    for (const l of [...this.dropListeners]) l(storageKey);
  }

  /** Called with the storage key of a dropped resource. */
  onDrop(l: (storageKey: string) => void): () => void {
    this.dropListeners.add(l);
    return () => this.dropListeners.delete(l);
  }

  eventsSince(storageKey: string, rv: number): StoredEvent[] {
    return (this.history.get(storageKey) ?? []).filter((e) => e.rv > rv);
  }

  subscribe(l: EventListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Forget history: watches and continue tokens from before now get 410 Expired. */
  compact(): void {
    this.history.clear();
    this.minWatchable.clear();
    this.baseWatchableRv = this.rv;
    this.compactedRv = this.rv;
  }
}
