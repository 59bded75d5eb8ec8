/**
 * The generic registry: create / update / patch / delete semantics on top of the Store, as kube-apiserver's
 * genericregistry.Store + strategies do (server-set metadata, generation, status/scale subresources,
 * finalizers, CR pruning/defaulting/validation, namespace lifecycle, CRD registration, optional GC).
 */
import { randomInt, randomUUID } from 'node:crypto';
import { applyBuiltinDefaults, validateBuiltin } from './builtin-defaults';
import { keepAllocatedServiceValues, validateBuiltinUpdate } from './builtin-updates';
import { validateCustomResource } from './cr-validation';
import { prepareCrd } from './crd-strategy';
import { coreToEventsV1, eventsV1ToCore, validateEventCreate } from './events';
import { GarbageCollector } from './garbage-collector';
import { clone, deepEqual, isObject, nowTimestamp, setJsonPath } from './json-util';
import { ManagedFieldsEntry, Scope, WriteContext, serverSideApply, trackUpdate } from './managed-fields';
import { nameErrors, validateObjectMeta } from './metadata-validation';
import { ResourceCatalog, ResourceInfo, apiVersionOf } from './resources';
import { toScale } from './scale';
import { checkTypedDecoding } from './typed-decoding';
import { applyDefaults, prune } from './schema';
import {
  ApiError, StatusCause, alreadyExists, applyConflict, badRequest, conflict, fieldForbidden, fieldInvalid, fieldRequired, forbidden, invalid, notFound, successStatus,
} from './status';
import { EventType, Store, objectKey } from './store';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  readonly manager: string;
  readonly dryRun?: boolean;
  readonly fieldValidation?: FieldValidation;
  readonly subresource?: string;
}

export interface WriteResult {
  readonly object: any;
  readonly warnings: string[];
  readonly created?: boolean;
}

export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly dryRun?: boolean;
}

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** Resources whose DELETE answers with the deleted object instead of a Status (ReturnDeletedObject). */
const RETURNS_DELETED_OBJECT = new Set(['pods', 'services', 'serviceaccounts']);

export class Registry {
  /** kube-controller-manager's garbage collector + namespace controller, when enabled. */
  private readonly gc?: GarbageCollector;

  constructor(public readonly store: Store, public readonly catalog: ResourceCatalog, gc: boolean) {
    if (gc) this.gc = new GarbageCollector(this, store, catalog);
  }

  /** Object as seen through `res` (its apiVersion; events.k8s.io Events converted from the stored core shape). */
  view(res: ResourceInfo, obj: any): any {
    return obj ? this.ownedView(res, clone(obj)) : obj;
  }

  /** A shallow view for serialisation only (watch events): callers must not mutate it. */
  readonlyView(res: ResourceInfo, obj: any): any {
    return this.ownedView(res, { ...obj });
  }

  /** Like view() for a private copy (what the store's getters return): converted in place, no second clone. */
  private ownedView(res: ResourceInfo, obj: any): any {
    const out = isEventsV1(res) ? coreToEventsV1(obj) : obj;
    out.apiVersion = apiVersionOf(res);
    out.kind = res.kind;
    return out;
  }

  /** Writes through to the store in the storage shape and returns the stored object as seen through `res`. */
  private commit(res: ResourceInfo, type: EventType, obj: any): any {
    return this.ownedView(res, this.store.commit(res.storageKey, type, isEventsV1(res) ? eventsV1ToCore(obj) : obj));
  }

  get(res: ResourceInfo, namespace: string | undefined, name: string): any {
    const obj = this.store.get(res.storageKey, objectKey(res.namespaced ? namespace : undefined, name));
    if (!obj) throw notFound(res, name);
    return this.ownedView(res, obj);
  }

  tryGet(res: ResourceInfo, namespace: string | undefined, name: string): any | undefined {
    const obj = this.store.get(res.storageKey, objectKey(res.namespaced ? namespace : undefined, name));
    return obj ? this.ownedView(res, obj) : undefined;
  }

  // ---------------------------------------------------------------- create

  create(res: ResourceInfo, namespace: string | undefined, body: any, opts: WriteOptions, managedFields?: ManagedFieldsEntry[]): WriteResult {
    if (!isObject(body)) throw badRequest('Object \'Kind\' is missing in \'null\'');
    this.checkTypeMeta(res, body);
    const obj = clone(body);
    obj.apiVersion = apiVersionOf(res);
    obj.kind = res.kind;
    obj.metadata = isObject(obj.metadata) ? obj.metadata : {};
    const meta = obj.metadata;
    if (res.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      meta.namespace = namespace ?? meta.namespace;
      this.checkNamespaceWritable(res, meta.namespace, meta.name ?? '');
    } else delete meta.namespace;
    if (!meta.name && meta.generateName) meta.name = this.generateName(res, meta.namespace, meta.generateName);
    if (!meta.name) throw invalid(res, '', [fieldRequired('metadata.name', 'name or generateName is required')]);
    if (this.store.get(res.storageKey, objectKey(meta.namespace, meta.name))) throw alreadyExists(res, meta.name);

    for (const k of ['resourceVersion', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']) delete meta[k];
    meta.uid = randomUUID();
    meta.creationTimestamp = nowTimestamp();
    if (res.generation) meta.generation = 1;
    else delete meta.generation;
    if (res.status && res.custom) delete obj.status;

    const warnings = this.prepare(res, obj, undefined, opts);
    if (res.kind === 'CustomResourceDefinition' && res.group === 'apiextensions.k8s.io') prepareCrd(obj, warnings);
    const mf = managedFields ?? trackUpdate(undefined, obj, this.writeContext(res, opts, 'main'));
    if (mf) meta.managedFields = mf;
    if (opts.dryRun) return { object: this.view(res, { ...obj, metadata: { ...meta, resourceVersion: undefined } }), warnings, created: true };
    const stored = this.commit(res, 'ADDED', obj);
    if (res.kind === 'CustomResourceDefinition' && res.group === 'apiextensions.k8s.io') this.catalog.registerCrd(stored);
    return { object: stored, warnings, created: true };
  }

  // ---------------------------------------------------------------- update (PUT)

  update(res: ResourceInfo, namespace: string | undefined, name: string, body: any, opts: WriteOptions): WriteResult {
    if (!isObject(body)) throw badRequest('Object \'Kind\' is missing in \'null\'');
    this.checkTypeMeta(res, body);
    const current = this.get(res, namespace, name);
    if (body.metadata?.name !== undefined && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (res.custom && !body.metadata?.resourceVersion) {
      throw invalid(res, name, [fieldInvalid('metadata.resourceVersion', '0x0', 'must be specified for an update')]);
    }
    return this.applyWrite(res, current, clone(body), opts);
  }

  /** Turns a candidate object (PUT body, patched object) into a stored write. */
  applyWrite(res: ResourceInfo, current: any, candidate: any, opts: WriteOptions, managedFields?: ManagedFieldsEntry[]): WriteResult {
    const name = current.metadata.name;
    const rv = candidate.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) throw conflict(res, name);
    const uid = candidate.metadata?.uid;
    if (uid && uid !== current.metadata.uid) {
      throw conflict(res, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${current.metadata.uid}`);
    }
    let next: any;
    if (opts.subresource === 'status') {
      next = clone(current);
      if (candidate.status === undefined) delete next.status;
      else next.status = candidate.status;
    } else if (opts.subresource === 'finalize') {
      // namespaces/finalize only changes spec.finalizers
      next = clone(current);
      next.spec = { ...(next.spec ?? {}), finalizers: candidate.spec?.finalizers ?? [] };
    } else {
      next = clone(candidate);
      next.apiVersion = current.apiVersion;
      next.kind = current.kind;
      next.metadata = isObject(next.metadata) ? next.metadata : {};
      for (const k of ['name', 'namespace', 'uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'managedFields']) {
        if (current.metadata[k] === undefined) delete next.metadata[k];
        else next.metadata[k] = current.metadata[k];
      }
      if (res.status) {
        if (current.status === undefined) delete next.status;
        else next.status = current.status;
      }
      if (res.kind === 'Namespace' && !res.group) {
        // only namespaces/finalize may change spec.finalizers
        next.spec = { ...(next.spec ?? {}), finalizers: current.spec?.finalizers };
        if (next.spec.finalizers === undefined) delete next.spec.finalizers;
      }
    }
    next.metadata.resourceVersion = current.metadata.resourceVersion;

    const warnings = this.prepare(res, next, current, opts);
    if (res.kind === 'CustomResourceDefinition' && res.group === 'apiextensions.k8s.io') prepareCrd(next, warnings);

    if (current.metadata.deletionTimestamp) {
      const added = (next.metadata.finalizers ?? []).filter((f: string) => !(current.metadata.finalizers ?? []).includes(f));
      if (added.length) {
        const detail = `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f: string) => JSON.stringify(f)).join(', ')}}`;
        // kube-apiserver reports this cause twice (ValidateObjectMetaUpdate + finalizer check); keep the wording.
        throw invalid(res, name, [fieldForbidden('metadata.finalizers', detail), fieldForbidden('metadata.finalizers', detail)]);
      }
    }
    if (Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length === 0) delete next.metadata.finalizers;

    if (res.generation && current.metadata.generation !== undefined && specChanged(res, current, next)) {
      next.metadata.generation = current.metadata.generation + 1;
    }
    const scope: Scope = opts.subresource === 'status' ? 'status' : res.status ? 'main' : 'main-with-status';
    // Like the apiserver's field manager: a request that sets managedFields explicitly (non-empty and different)
    // replaces them and is not tracked; a single empty entry ([{}]) resets them.
    const requested = candidate.metadata?.managedFields;
    const explicit = !managedFields && opts.subresource !== 'status' && Array.isArray(requested) && requested.length > 0
      && !deepEqual(requested, current.metadata.managedFields);
    const mf = explicit
      ? (requested.length === 1 && isObject(requested[0]) && Object.keys(requested[0]).length === 0 ? undefined : requested)
      : managedFields ?? trackUpdate(current, next, this.writeContext(res, opts, scope));
    if (mf) next.metadata.managedFields = mf;
    else delete next.metadata.managedFields;

    if (deepEqual(stripVolatile(next), stripVolatile(current))) return { object: current, warnings };
    if (opts.dryRun) return { object: this.view(res, next), warnings };

    if (next.metadata.deletionTimestamp && !next.metadata.finalizers?.length && !hasNamespaceFinalizers(res, next)) {
      this.commit(res, 'DELETED', next);
      this.afterRemoval(res, next);
      return { object: this.view(res, next), warnings };
    }
    const stored = this.commit(res, 'MODIFIED', next);
    if (res.kind === 'CustomResourceDefinition' && res.group === 'apiextensions.k8s.io') this.catalog.registerCrd(stored);
    this.afterTerminatingWrite(res, stored);
    return { object: stored, warnings };
  }

  // ---------------------------------------------------------------- server-side apply

  apply(res: ResourceInfo, namespace: string | undefined, name: string, applied: any, opts: WriteOptions & { force: boolean }): WriteResult {
    if (!isObject(applied)) throw badRequest('Object \'Kind\' is missing in \'null\'');
    if (applied.metadata?.name !== undefined && applied.metadata.name !== name) {
      throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
    }
    if (!applied.kind || !applied.apiVersion) {
      throw badRequest(`invalid object type: ${applied.apiVersion ?? ''}, Kind=${applied.kind ?? ''}`);
    }
    this.checkTypeMeta(res, applied);
    const current = this.tryGet(res, namespace, name);
    const scope: Scope = opts.subresource === 'status' ? 'status' : res.status ? 'main' : 'main-with-status';
    const ctx: WriteContext = { manager: opts.manager, apiVersion: apiVersionOf(res), subresource: opts.subresource, scope, schema: res.schema };
    if (!current) {
      if (opts.subresource) throw notFound(res, name);
      const result = serverSideApply(undefined, applied, ctx, opts.force);
      const body = { ...result.object, metadata: { ...(result.object.metadata ?? {}), name } };
      return this.create(res, namespace, body, opts, result.managedFields);
    }
    const result = serverSideApply(current, applied, ctx, opts.force);
    if (result.conflicts.length) throw applyConflict(result.conflicts);
    const candidate = result.object;
    candidate.metadata.resourceVersion = applied.metadata?.resourceVersion ?? current.metadata.resourceVersion;
    return this.applyWrite(res, current, candidate, opts, result.managedFields);
  }

  // ---------------------------------------------------------------- delete

  delete(res: ResourceInfo, namespace: string | undefined, name: string, opts: DeleteOptions): any {
    const current = this.get(res, namespace, name);
    if (res.kind === 'Namespace' && !res.group && ['default', 'kube-system', 'kube-public'].includes(name)) {
      throw forbidden(res, name, 'this namespace may not be deleted');
    }
    const pre = opts.preconditions ?? {};
    if (pre.uid && pre.uid !== current.metadata.uid) {
      throw conflict(res, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid}`);
    }
    if (pre.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(res, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion}`);
    }
    const next = clone(current);
    const finalizers: string[] = [...(next.metadata.finalizers ?? [])];
    if (!current.metadata.deletionTimestamp) {
      if (opts.propagationPolicy === 'Foreground' && !finalizers.includes('foregroundDeletion')) finalizers.push('foregroundDeletion');
      if (opts.propagationPolicy === 'Orphan' && !finalizers.includes('orphan')) finalizers.push('orphan');
    }
    if (finalizers.length || hasNamespaceFinalizers(res, next)) {
      if (current.metadata.deletionTimestamp) return current;
      next.metadata.finalizers = finalizers.length ? finalizers : undefined;
      if (!finalizers.length) delete next.metadata.finalizers;
      if (next.metadata.generation > 0) next.metadata.generation += 1;
      next.metadata.deletionTimestamp = nowTimestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (res.kind === 'Namespace' && !res.group) next.status = { ...(next.status ?? {}), phase: 'Terminating' };
      if (opts.dryRun) return this.view(res, next);
      const stored = this.commit(res, 'MODIFIED', next);
      this.afterTerminatingWrite(res, stored);
      return stored;
    }
    if (opts.dryRun) return RETURNS_DELETED_OBJECT.has(res.plural) ? current : successStatus(res, name, current.metadata.uid);
    const gone = this.commit(res, 'DELETED', next);
    this.afterRemoval(res, gone);
    return RETURNS_DELETED_OBJECT.has(res.plural) ? gone : successStatus(res, name, current.metadata.uid);
  }

  /** Removes an object at once (no finalizers, no GC): test-side direct store access. */
  removeNow(res: ResourceInfo, obj: any): void {
    this.commit(res, 'DELETED', obj);
  }

  /** Objects of a resource as seen through it, optionally one namespace only, sorted by key. */
  listViews(res: ResourceInfo, namespace?: string, atRv?: number): any[] {
    const ns = res.namespaced ? namespace : undefined;
    const entries = atRv === undefined ? this.store.list(res.storageKey, ns) : this.store.listAt(res.storageKey, atRv, ns);
    return entries.map((e) => this.ownedView(res, e.object));
  }

  // ---------------------------------------------------------------- scale subresource

  getScale(res: ResourceInfo, namespace: string | undefined, name: string): any {
    const obj = this.get(res, namespace, name);
    return toScale(res, obj);
  }

  updateScale(res: ResourceInfo, namespace: string | undefined, name: string, scale: any, opts: WriteOptions): WriteResult {
    const current = this.get(res, namespace, name);
    const rv = scale?.metadata?.resourceVersion;
    if (rv && rv !== current.metadata.resourceVersion) throw conflict(res, name);
    const replicas = scale?.spec?.replicas;
    if (replicas !== undefined && (typeof replicas !== 'number' || replicas < 0 || !Number.isInteger(replicas))) {
      throw new ApiError(422, 'Invalid', `Scale.autoscaling "${name}" is invalid: spec.replicas: Invalid value: ${replicas}: must be greater than or equal to 0`,
        { name, group: 'autoscaling', kind: 'Scale', causes: [fieldInvalid('spec.replicas', replicas, 'must be greater than or equal to 0')] });
    }
    const next = clone(current);
    setJsonPath(next, res.scale!.specReplicasPath, replicas ?? 0);
    const result = this.applyWrite(res, current, next, { ...opts, subresource: undefined });
    return { object: toScale(res, result.object), warnings: result.warnings };
  }

  // ---------------------------------------------------------------- helpers

  private writeContext(res: ResourceInfo, opts: WriteOptions, scope: Scope): WriteContext {
    return { manager: opts.manager, apiVersion: apiVersionOf(res), subresource: opts.subresource, scope: res.status && scope === 'main-with-status' ? 'main' : scope, schema: res.schema };
  }

  private checkTypeMeta(res: ResourceInfo, body: any): void {
    if (body.kind !== undefined && body.kind !== res.kind) {
      throw badRequest(`${body.kind} in version "${res.version}" cannot be handled as a ${res.kind}: no kind "${body.kind}" is registered for version "${apiVersionOf(res)}"`);
    }
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersionOf(res)) {
      const other = this.catalog.byKind(body.apiVersion, res.kind);
      if (!other || other.storageKey !== res.storageKey) {
        throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersionOf(res)})`);
      }
    }
  }

  private checkNamespaceWritable(res: ResourceInfo, namespace: string, name: string): void {
    const ns = this.store.get('/namespaces', namespace);
    if (!ns) throw notFound({ group: '', plural: 'namespaces', kind: 'Namespace' }, namespace);
    if (ns.metadata.deletionTimestamp) {
      throw forbidden(res, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }

  private generateName(res: ResourceInfo, namespace: string | undefined, prefix: string): string {
    for (;;) {
      let suffix = '';
      for (let i = 0; i < 5; i++) suffix += GENERATE_CHARS[randomInt(GENERATE_CHARS.length)];
      const name = `${prefix}${suffix}`;
      if (!this.store.get(res.storageKey, objectKey(namespace, name))) return name;
    }
  }

  /** Defaulting, pruning and validation for the candidate object; returns warnings. */
  private prepare(res: ResourceInfo, obj: any, old: any | undefined, opts: WriteOptions): string[] {
    const warnings: string[] = [];
    const causes: StatusCause[] = [];
    const name = obj.metadata.name;
    if (!old) causes.push(...nameErrors(res, name));
    const metaCheck = validateObjectMeta(obj.metadata, res.custom);
    causes.push(...metaCheck.causes);
    if (!old || !deepEqual(old.metadata?.finalizers, obj.metadata?.finalizers)) warnings.push(...metaCheck.warnings);
    if (res.custom && res.schema) {
      const unknown = prune(obj, res.schema);
      if (unknown.length) {
        const mode = opts.fieldValidation ?? 'Warn';
        if (mode === 'Strict') {
          throw badRequest(`${res.kind} in version "${res.version}" cannot be handled as a ${res.kind}: strict decoding error: ${unknown.map((u) => `unknown field "${u}"`).join(', ')}`);
        }
        if (mode === 'Warn') for (const u of unknown) warnings.push(`unknown field "${u}"`);
      }
      applyDefaults(obj, res.schema);
      causes.push(...validateCustomResource(obj, old, res.schema));
    } else if (!res.custom) {
      checkTypedDecoding(res, obj);
      if (old && res.kind === 'Service' && !res.group) keepAllocatedServiceValues(obj, old);
      applyBuiltinDefaults(res.kind, obj, !old);
      causes.push(...validateBuiltin(res.kind, obj));
      if (old && opts.subresource !== 'status') causes.push(...validateBuiltinUpdate(res.kind, old, obj));
      if (res.kind === 'Event' && !old) causes.push(...validateEventCreate(isEventsV1(res) ? eventsV1ToCore(obj) : obj, isEventsV1(res)));
    }
    if (causes.length) throw invalid(res, name, causes);
    return warnings;
  }

  /** After an object is really gone: unregister CRDs, let the garbage collector (if any) collect dependents. */
  private afterRemoval(res: ResourceInfo, obj: any): void {
    if (res.kind === 'CustomResourceDefinition' && res.group === 'apiextensions.k8s.io') {
      const gone = this.catalog.unregisterCrd(obj.metadata.name);
      const key = gone[0]?.storageKey;
      if (key) {
        for (const { object } of this.store.list(key)) this.store.commit(key, 'DELETED', object);
        this.store.dropResource(key);
      }
    }
    this.gc?.onRemoved(obj);
  }

  /** An object got (or kept) a deletionTimestamp: the garbage collector (if any) handles its finalizers. */
  private afterTerminatingWrite(res: ResourceInfo, obj: any): void {
    if (obj.metadata.deletionTimestamp) this.gc?.onTerminating(res, obj);
  }
}

function isEventsV1(res: ResourceInfo): boolean {
  return res.group === 'events.k8s.io' && res.kind === 'Event';
}

function hasNamespaceFinalizers(res: ResourceInfo, obj: any): boolean {
  return res.kind === 'Namespace' && !res.group && (obj.spec?.finalizers ?? []).length > 0;
}

/** generation moves when anything outside metadata (and status, with a status subresource) changes. */
function specChanged(res: ResourceInfo, a: any, b: any): boolean {
  const strip = (o: any) => {
    const c = { ...o };
    delete c.metadata;
    delete c.apiVersion;
    delete c.kind;
    if (res.status) delete c.status;
    return c;
  };
  return !deepEqual(strip(a), strip(b));
}

/** Equality for no-op detection: resourceVersion and managedFields timestamps do not count. */
function stripVolatile(o: any): any {
  const c = clone(o);
  delete c.metadata.resourceVersion;
  if (Array.isArray(c.metadata.managedFields)) for (const e of c.metadata.managedFields) delete e.time;
  return c;
}
