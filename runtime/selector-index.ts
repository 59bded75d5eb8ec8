/**
 * Cross-resource mapping through label selectors: which objects *select* a given object
 * (a Prometheus selecting ServiceMonitors by label and by their namespace's labels), answered from
 * an inverted index instead of a scan of every selecting object per event.
 *
 * Expected flow:
 * ```ts
 * const selecting = new SelectorIndex(manager.getInformer(PROMETHEUS), {
 *   selectors: (p) => ({ serviceMonitors: p.spec.serviceMonitorSelector, serviceMonitorNamespaces: nsSelector(p) }),
 * });
 * new ControllerBuilder(manager, { name: 'prometheus' })
 *   .for(PROMETHEUS)
 *   .watches(SERVICEMONITOR, (sm) => selecting.matchingAll({ serviceMonitors: sm.metadata?.labels, serviceMonitorNamespaces: labelsOfNamespace(sm) }))
 *   .watches(NAMESPACE, (ns) => selecting.matching('serviceMonitorNamespaces', ns.metadata?.labels))
 *   .complete(reconciler);
 * ```
 * The controller calls a map function with the old and the new object of an update, so an object
 * (or a namespace) relabelled *out of* a selector still re-reconciles the objects that selected it.
 *
 * Guarantees:
 * - {@link LabelSelectorIndex} files each selector under one anchor: a `matchLabels` pair, else the
 *   values of an `In` requirement, else the key of an `Exists` requirement. A lookup tests only the
 *   selectors filed under the looked-up labels' pairs and keys, plus the unanchored ones (the empty
 *   selector, only `NotIn`/`DoesNotExist`), and returns exactly those that {@link labelSelectorMatches}.
 * - {@link SelectorIndex} follows its informer (add, update, delete, relist) through an event handler,
 *   so it is current whenever a map function runs from another informer's event.
 *
 * Caveats: the index reflects the informer's cache, which may lag the apiserver; reconcilers stay
 * level-based (they recompute everything they select from the caches), so a late mapping only delays.
 */
import { EventHandler } from './informer';
import { LabelSelector, labelSelectorMatches, Labels } from './label-selector';
import { SharedInformer } from './namespaced-informers';
import { KubeObject, ObjectKeyRef, objectKey, parseObjectKey } from './resource';

function addTo(map: Map<string, Set<string>>, key: string, id: string): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(id);
}

function removeFrom(map: Map<string, Set<string>>, key: string, id: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(id);
  if (set.size === 0) map.delete(key);
}

type Anchor = { readonly pairs: readonly string[] } | { readonly key: string } | 'unanchored';

function anchorOf(selector: LabelSelector): Anchor {
  const labels = Object.entries(selector.matchLabels ?? {});
  if (labels.length > 0) return { pairs: [`${labels[0][0]}=${labels[0][1]}`] };
  const expressions = selector.matchExpressions ?? [];
  const inReq = expressions.find((r) => r.operator === 'In' && (r.values?.length ?? 0) > 0);
  if (inReq) return { pairs: inReq.values!.map((v) => `${inReq.key}=${v}`) };
  const exists = expressions.find((r) => r.operator === 'Exists');
  if (exists) return { key: exists.key };
  return 'unanchored';
}

/** An inverted index of label selectors by id: which selectors match a label set (see module docs). */
export class LabelSelectorIndex {
  private readonly selectors = new Map<string, { selector: LabelSelector; anchor: Anchor }>();
  private readonly byPair = new Map<string, Set<string>>();
  private readonly byKey = new Map<string, Set<string>>();
  private readonly unanchored = new Set<string>();
  private tested = 0;

  /** Number of selectors held. */
  get size(): number {
    return this.selectors.size;
  }

  /** Selectors fully evaluated by lookups so far (what the index saves against a scan shows here). */
  get evaluations(): number {
    return this.tested;
  }

  /** Files `selector` under `id`, replacing its previous one; `null`/`undefined` selects nothing and is dropped. */
  set(id: string, selector: LabelSelector | null | undefined): void {
    this.delete(id);
    if (!selector) return;
    const anchor = anchorOf(selector);
    this.selectors.set(id, { selector, anchor });
    if (anchor === 'unanchored') this.unanchored.add(id);
    else if ('key' in anchor) addTo(this.byKey, anchor.key, id);
    else for (const pair of anchor.pairs) addTo(this.byPair, pair, id);
  }

  /** Removes the selector of `id` (no-op when absent). */
  delete(id: string): void {
    const entry = this.selectors.get(id);
    if (!entry) return;
    this.selectors.delete(id);
    const anchor = entry.anchor;
    if (anchor === 'unanchored') this.unanchored.delete(id);
    else if ('key' in anchor) removeFrom(this.byKey, anchor.key, id);
    else for (const pair of anchor.pairs) removeFrom(this.byPair, pair, id);
  }

  /** Ids whose selector matches `labels`, sorted. */
  matching(labels: Labels | undefined): string[] {
    const have = labels ?? {};
    const candidates = new Set<string>(this.unanchored);
    for (const [k, v] of Object.entries(have)) {
      for (const id of this.byPair.get(`${k}=${v}`) ?? []) candidates.add(id);
      for (const id of this.byKey.get(k) ?? []) candidates.add(id);
    }
    const out: string[] = [];
    for (const id of candidates) {
      this.tested++;
      if (labelSelectorMatches(this.selectors.get(id)!.selector, have)) out.push(id);
    }
    return out.sort();
  }
}

/** Options of {@link SelectorIndex}. */
export interface SelectorIndexOptions {
  /**
   * The selectors an object holds, by slot name (e.g. `serviceMonitors`, `serviceMonitorNamespaces`).
   * `null`/`undefined` in a slot selects nothing; translate API-specific meanings of an absent selector here.
   */
  readonly selectors: (obj: KubeObject) => Readonly<Record<string, LabelSelector | null | undefined>>;
}

/** The selectors of every object of one kind, kept current from its informer (see module docs). */
export class SelectorIndex {
  private readonly slots = new Map<string, LabelSelectorIndex>();
  private readonly filed = new Map<string, readonly string[]>();
  private readonly remove: () => void;

  constructor(
    informer: SharedInformer,
    private readonly options: SelectorIndexOptions,
  ) {
    const handler: EventHandler = {
      onAdd: (obj) => this.file(obj),
      onUpdate: (_old, obj) => this.file(obj),
      onDelete: (obj) => this.unfile(objectKey(obj)),
    };
    this.remove = informer.addEventHandler(handler);
  }

  /** Selectors fully evaluated by lookups so far, over all slots. */
  get evaluations(): number {
    let n = 0;
    for (const index of this.slots.values()) n += index.evaluations;
    return n;
  }

  /** Objects whose selector in `slot` matches `labels`. */
  matching(slot: string, labels: Labels | undefined): ObjectKeyRef[] {
    return (this.slots.get(slot)?.matching(labels) ?? []).map(parseObjectKey);
  }

  /** Objects whose selector in every given slot matches that slot's labels (e.g. the object's and its namespace's). */
  matchingAll(labelsBySlot: Readonly<Record<string, Labels | undefined>>): ObjectKeyRef[] {
    let keys: string[] | undefined;
    for (const [slot, labels] of Object.entries(labelsBySlot)) {
      const found = this.slots.get(slot)?.matching(labels) ?? [];
      keys = keys === undefined ? found : keys.filter((k) => found.includes(k));
      if (keys.length === 0) break;
    }
    return (keys ?? []).map(parseObjectKey);
  }

  /** Stops following the informer. */
  stop(): void {
    this.remove();
  }

  private file(obj: KubeObject): void {
    const key = objectKey(obj);
    const selectors = this.options.selectors(obj);
    for (const slot of this.filed.get(key) ?? []) if (!(slot in selectors)) this.slots.get(slot)?.delete(key);
    for (const [slot, selector] of Object.entries(selectors)) {
      let index = this.slots.get(slot);
      if (!index) this.slots.set(slot, (index = new LabelSelectorIndex()));
      index.set(key, selector);
    }
    this.filed.set(key, Object.keys(selectors));
  }

  private unfile(key: string): void {
    for (const slot of this.filed.get(key) ?? []) this.slots.get(slot)?.delete(key);
    this.filed.delete(key);
  }
}
