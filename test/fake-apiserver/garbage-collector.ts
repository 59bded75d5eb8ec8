/**
 * What kube-controller-manager's garbage collector and namespace controller do (optional: envtest has neither):
 * background deletion of dependents, `orphan` and `foregroundDeletion` finalizers, emptying terminating namespaces.
 */
import { clone } from './json-util';
import type { Registry } from './registry';
import { ResourceCatalog, ResourceInfo } from './resources';
import { ApiError } from './status';
import { Store } from './store';

export class GarbageCollector {
  constructor(private readonly registry: Registry, private readonly store: Store, private readonly catalog: ResourceCatalog) {}

  /** An object became (or stays) terminating: process orphan/foreground finalizers, empty namespaces. */
  onTerminating(res: ResourceInfo, obj: any): void {
    setImmediate(() => this.runGcForTerminating(res, obj.metadata.namespace, obj.metadata.name));
  }

  /** An object is gone: delete its dependents (background propagation), or drop the reference if other owners live. */
  onRemoved(obj: any): void {
    const uid = obj.metadata.uid;
    setImmediate(() => {
      for (const { res: dres, obj: dep } of this.dependentsOf(uid)) {
        const others = dep.metadata.ownerReferences.filter((r: any) => r.uid !== uid);
        const ownersAlive = others.some((r: any) => this.ownerExists(r, dep.metadata.namespace));
        if (ownersAlive) {
          const next = clone(dep);
          next.metadata.ownerReferences = others;
          this.registry.applyWrite(dres, dep, next, { manager: 'generic-garbage-collector' });
        } else this.safeDelete(dres, dep);
      }
    });
  }

  private runGcForTerminating(res: ResourceInfo, namespace: string | undefined, name: string): void {
    const obj = this.registry.tryGet(res, namespace, name);
    if (!obj?.metadata.deletionTimestamp) return;
    const uid = obj.metadata.uid;
    const finalizers: string[] = obj.metadata.finalizers ?? [];
    if (res.kind === 'Namespace' && !res.group) {
      this.deleteNamespaceContents(name);
      return;
    }
    if (finalizers.includes('orphan')) {
      for (const { res: dres, obj: dep } of this.dependentsOf(uid)) {
        const next = clone(dep);
        next.metadata.ownerReferences = dep.metadata.ownerReferences.filter((r: any) => r.uid !== uid);
        if (!next.metadata.ownerReferences.length) delete next.metadata.ownerReferences;
        this.registry.applyWrite(dres, dep, next, { manager: 'generic-garbage-collector' });
      }
      this.removeFinalizer(res, obj, 'orphan');
    } else if (finalizers.includes('foregroundDeletion')) {
      const deps = this.dependentsOf(uid);
      for (const { res: dres, obj: dep } of deps) {
        if (!dep.metadata.deletionTimestamp) this.safeDelete(dres, dep, 'Foreground');
      }
      if (this.dependentsOf(uid).length === 0) this.removeFinalizer(res, obj, 'foregroundDeletion');
      else setTimeout(() => this.runGcForTerminating(res, namespace, name), 20).unref();
    }
  }

  private removeFinalizer(res: ResourceInfo, obj: any, finalizer: string): void {
    const current = this.registry.tryGet(res, obj.metadata.namespace, obj.metadata.name);
    if (!current) return;
    const next = clone(current);
    next.metadata.finalizers = (next.metadata.finalizers ?? []).filter((f: string) => f !== finalizer);
    this.registry.applyWrite(res, current, next, { manager: 'generic-garbage-collector' });
  }

  private safeDelete(res: ResourceInfo, obj: any, policy?: 'Foreground' | 'Background'): void {
    try {
      this.registry.delete(res, obj.metadata.namespace, obj.metadata.name, { propagationPolicy: policy });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }

  private dependentsOf(uid: string): Array<{ res: ResourceInfo; obj: any }> {
    const out: Array<{ res: ResourceInfo; obj: any }> = [];
    const seen = new Set<string>();
    for (const res of this.catalog.all()) {
      if (seen.has(res.storageKey)) continue;
      seen.add(res.storageKey);
      for (const { object } of this.store.list(res.storageKey)) {
        if ((object.metadata.ownerReferences ?? []).some((r: any) => r.uid === uid)) out.push({ res, obj: this.registry.view(res, object) });
      }
    }
    return out;
  }

  private deleteNamespaceContents(ns: string): void {
    let remaining = 0;
    const seen = new Set<string>();
    for (const res of this.catalog.all()) {
      if (!res.namespaced || seen.has(res.storageKey)) continue;
      seen.add(res.storageKey);
      for (const { object } of this.store.list(res.storageKey, ns)) {
        remaining++;
        if (!object.metadata.deletionTimestamp) this.safeDelete(res, object);
      }
    }
    const nsRes = this.catalog.find('', 'v1', 'namespaces')!;
    const current = this.registry.tryGet(nsRes, undefined, ns);
    if (!current) return;
    if (remaining === 0 || this.namespaceEmpty(ns)) {
      const next = clone(current);
      next.spec = { ...(next.spec ?? {}), finalizers: [] };
      this.registry.applyWrite(nsRes, current, next, { manager: 'namespace-controller', subresource: 'finalize' });
    } else setTimeout(() => this.runGcForTerminating(nsRes, undefined, ns), 20).unref();
  }

  private namespaceEmpty(ns: string): boolean {
    return this.catalog.all().filter((r) => r.namespaced).every((r) => this.store.list(r.storageKey, ns).length === 0);
  }

  private ownerExists(ref: any, namespace: string | undefined): boolean {
    const res = this.catalog.byKind(ref.apiVersion, ref.kind);
    if (!res) return false;
    const owner = this.registry.tryGet(res, namespace, ref.name);
    return !!owner && owner.metadata.uid === ref.uid;
  }
}
