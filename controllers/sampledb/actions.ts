/**
 * The writes a SampleDB reconcile makes, with the checks every write needs: never adopt an object
 * another owner controls, skip no-op writes, treat "already exists"/"not found" as done. Writes go
 * through the manager's read-your-writes client, so they return once the informer shows them and
 * the next reconcile is never stale. Records which writes happened, so lifecycle events are
 * emitted only for real changes.
 */
import { Database, Desired } from './types';
import {
  addFinalizer,
  applyOwned,
  EventInput,
  isAlreadyExists,
  isControlledBy,
  isNotFound,
  KubeClient,
  KubeObject,
  removeFinalizer,
  ResourceRef,
  Store,
  Stored,
} from '../../runtime';

/** Something that records events (the runtime's EventRecorder). */
export interface EventSink {
  event(regarding: KubeObject, input: EventInput): Promise<void>;
}

/** An object of the database's name exists but another owner controls it. */
export class ResourceExistsError extends Error {
  constructor(
    readonly kind: string,
    readonly objectName: string,
  ) {
    super(`${kind} ${objectName} already exists and is not controlled by this SampleDB`);
  }
}

/** Shared dependencies of one reconcile's writes. */
export interface ActionDeps {
  /** Writes return once the informer of their kind shows them (the manager's `readYourWritesClient`). */
  readonly client: KubeClient;
  readonly fieldManager: string;
  readonly recorder?: EventSink;
}

/** Writes for one SampleDB during one reconcile. */
export class Actions {
  /** Number of writes made so far. */
  writes = 0;

  constructor(
    private readonly deps: ActionDeps,
    readonly db: Database,
  ) {}

  /** The stored object `name` in the database's namespace. */
  cached<T extends KubeObject>(store: Store<T>, name: string): Stored<T> | undefined {
    return store.get({ namespace: this.db.metadata.namespace, name });
  }

  /** Throws {@link ResourceExistsError} if `live` exists and this database does not control it. */
  assertControlled(live: KubeObject | undefined): void {
    if (live && !isControlledBy(live, this.db)) {
      throw new ResourceExistsError(live.kind ?? 'object', live.metadata?.name ?? '');
    }
  }

  /** Server-side applies an owned object unless the stored one matches. True if written. */
  async apply<T extends KubeObject>(store: Store<T>, desired: Desired, resource: ResourceRef): Promise<boolean> {
    const live = this.cached(store, desired.metadata.name);
    this.assertControlled(live);
    const result = await applyOwned(this.deps.client, desired, {
      fieldManager: this.deps.fieldManager,
      live,
      resource,
    });
    if (!result.changed) return false;
    this.writes++;
    return true;
  }

  /**
   * Creates `obj` unless an object of its name is stored (create-once objects: Jobs, whose
   * templates are immutable, the credentials Secret, the backup volume). True if created.
   * Without a store (objects read by name only, like Secrets) the caller has checked existence.
   */
  async create<T extends KubeObject>(store: Store<T> | undefined, obj: Desired, checkOwner = true): Promise<boolean> {
    const live = store && this.cached(store, obj.metadata.name);
    if (checkOwner) this.assertControlled(live);
    if (live) return false;
    try {
      await this.deps.client.create(obj);
      this.writes++;
      return true;
    } catch (err) {
      if (isAlreadyExists(err)) return false; // the store lags; the next event reconciles again
      throw err;
    }
  }

  /** Deletes an object (background propagation). True if a delete was sent and found the object. */
  async delete(resource: ResourceRef, name: string, uid?: string, gracePeriodSeconds?: number): Promise<boolean> {
    try {
      await this.deps.client.delete(resource, name, this.db.metadata.namespace, {
        propagationPolicy: 'Background',
        ...(uid ? { preconditions: { uid } } : {}),
        ...(gracePeriodSeconds !== undefined ? { gracePeriodSeconds } : {}),
      });
      this.writes++;
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** JSON-merge-patches an object (no request for an empty patch). True if written. */
  async mergePatch(resource: ResourceRef, name: string, body: object): Promise<boolean> {
    if (Object.keys(body).length === 0) return false;
    await this.deps.client.patch(
      resource,
      name,
      this.db.metadata.namespace,
      { type: 'merge', body },
      { fieldManager: this.deps.fieldManager },
    );
    this.writes++;
    return true;
  }

  /** Adds a finalizer (the runtime's JSON-Patch test guarded helper; no request when present). Returns the current object. */
  async addFinalizer<T extends KubeObject>(obj: T, resource: ResourceRef, finalizer: string): Promise<T> {
    if ((obj.metadata?.finalizers ?? []).includes(finalizer)) return obj;
    const updated = await addFinalizer(this.deps.client, obj, finalizer, resource);
    this.writes++;
    return updated;
  }

  /** Removes a finalizer (the runtime's JSON-Patch test guarded helper; no request when absent). */
  async removeFinalizer(obj: KubeObject, resource: ResourceRef, finalizer: string): Promise<void> {
    if (!(obj.metadata?.finalizers ?? []).includes(finalizer)) return;
    try {
      await removeFinalizer(this.deps.client, obj, finalizer, resource);
      this.writes++;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** Uncached read (404 → undefined), for decisions that must not trust a lagging store. */
  async getLive(resource: ResourceRef, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.deps.client.get(resource, name, this.db.metadata.namespace);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** Records an event about the database (never blocks, never throws). */
  event(type: 'Normal' | 'Warning', reason: string, note: string, action = 'Reconcile'): void {
    void this.deps.recorder?.event(this.db, { type, reason, action, note });
  }
}
