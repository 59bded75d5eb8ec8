/**
 * Storage version migration, run by the operator itself: after a CRD's storage version changed, every
 * stored object is rewritten through the new storage version, then the old versions are removed from the
 * CRD's `status.storedVersions`, so a later release may stop serving and remove them.
 *
 * Why the operator's own job and not a synthesized Job: the operator already runs (as the leader) with the
 * CRD's conversion webhook, knows its CRDs and their storage versions, and is restarted by exactly the
 * upgrade that changes them (a new image with a new CRD); a Job would need its own image, RBAC, trigger and
 * ordering against the conversion webhook, and nobody would see its progress. The out-of-tree
 * kube-storage-version-migrator does not trim `storedVersions` (kube-storage-version-migrator#103).
 *
 * In-tree migration: where the cluster serves Kubernetes' StorageVersionMigration (`storagemigration.k8s.io/v1`,
 * new in 1.37 by upstream's sources, no 1.37 apiserver here; `v1beta1` from 1.35 and `v1alpha1` from 1.30, each
 * only with the `StorageVersionMigrator` gate and `--runtime-config`, measured on 1.36.3 and 1.32.13), the pass
 * creates one (`<storage version>.<crd name>`, annotated with the CRD's generation) instead of rewriting objects
 * itself and reports it as Migrating. kube-controller-manager 1.36.3 then rewrites the objects and, at the end, trims
 * `status.storedVersions` itself if the CRD did not change meanwhile (measured:
 * test/controllers/sampledb/in-tree-storage-migration.integration.test.ts); a later pass sees the migration
 * `Succeeded` and no longer `Running`, deletes it (so a later migration to this version starts a new one), trims
 * `storedVersions` where kube-controller-manager did not (only if the CRD's generation is still the one it was
 * created at; else a new migration starts) and reports Migrated. A `Failed` one is reported (condition Failed) and
 * deleted, so the next pass starts a new one. Where the API is not served, or the operator may not read or create
 * one (403), the operator's own pass runs. `inTree: false` switches it off.
 *
 * kube-controller-manager starts the rewrite only once its garbage collector's cache of the resource has seen a
 * resourceVersion at least as new as the one it recorded on the migration (upstream's storageversionmigrator.go:
 * "GC cache is not up to date"). A resource nobody writes to waits for that: measured on 1.36.3
 * (tools/probe/in-tree-migration-wait.ts), still Running after 80 s without a write, Succeeded 2.1 s after one write
 * to one object. By upstream's sources, without writes it waits for etcd's
 * watch progress notification (`--experimental-watch-progress-notify-interval`, 10 minutes by default) and the
 * controller's retry backoff (up to 1000 s): not measured here.
 *
 * Expected flow (wired by `setupStorageVersionMigration`, leader only):
 * ```ts
 * const migrator = new StorageVersionMigrator({ client, crdName: 'sampledbs.database.example.com', resource: SAMPLEDB });
 * await migrator.runOnce();   // at start, then every `intervalMs`
 * ```
 *
 * Guarantees:
 * - Nothing is written while `status.storedVersions` is exactly `[<storage version>]` (steady state).
 * - Each object is rewritten by a no-op update (GET by list, PUT unchanged, with its resourceVersion): the
 *   apiserver re-encodes it at the storage version and skips the etcd write only when the bytes are
 *   unchanged, i.e. when it was already stored at that version (kube-storage-version-migrator's mechanism).
 *   A 409 means someone wrote it since the list (so it is stored at the storage version), a 404 that it
 *   is gone: both count as done.
 * - Paginated (`pageSize` objects per list request) and rate-limited (`maxWritesPerSecond`).
 * - Resumable: after each page the list's continue token is written to the CRD's annotation
 *   `cdk8s-operator.io/storage-migration`; a restarted operator continues from it (an expired token, 410,
 *   starts the pass over: rewriting is idempotent).
 * - Reported: the CRD's status condition `StorageVersionMigrated` (False/Migrating with the count so far,
 *   True/Migrated, False/Failed with the first error) and the metrics `storage_version_migration_objects_total
 *   {crd,result}`, `storage_version_migration_stored_versions{crd}` and `storage_version_migration_complete{crd}`;
 *   each step also as an Event about the CRD (`recorder`): started, migrated, failed (and, in-tree, restarted).
 * - `storedVersions` is set to `[<storage version>]` only after a whole pass with no failed object, and only
 *   if the storage version is still the one the pass migrated to (an update with the CRD's resourceVersion).
 *
 * Caveats: with several apiservers in an HA control plane, one that has not yet seen the new storage
 * version could still write an object at the old one during the pass (the window of a CRD update's
 * propagation, seconds); the in-tree migrator shares that caveat. The pass reads every object through the
 * conversion webhook, which must be serving (the operator serves it itself).
 */
import * as prom from 'prom-client';
import { sleep } from '../backoff';
import { ListPage, ListOptions, Patch, PatchOptions } from '../client';
import { ApiError, isAlreadyExists, isConflict, isForbidden, isGone, isNotFound } from '../errors';
import type { EventInput } from '../events';
import { Logger, silentLogger } from '../log';
import { KubeObject, parseApiVersion, ResourceRef } from '../resource';
import { Condition, setCondition } from '../status';

/** The CustomResourceDefinition kind, as the client addresses it. */
/** The condition kube-controller-manager's migration runner keeps on the CRD (1.35+). */
const KCM_MIGRATION_CONDITION = 'StorageMigrating';
/** How long a Succeeded migration may wait for kube-controller-manager to record it on the CRD. */
const KCM_RECORD_WAIT_MS = 60_000;

export const CRD_RESOURCE: ResourceRef = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
};

/** Annotation on the CRD holding the state of a pass in progress (JSON: storageVersion, continue, rewritten). */
export const MIGRATION_ANNOTATION = 'cdk8s-operator.io/storage-migration';

/** Annotation on the in-tree StorageVersionMigration: the CRD's generation when the migrator created it. */
export const MIGRATION_GENERATION_ANNOTATION = 'cdk8s-operator.io/crd-generation';

/** The CRD status condition the migrator reports in. */
export const MIGRATED_CONDITION = 'StorageVersionMigrated';

/**
 * The API versions of Kubernetes' in-tree StorageVersionMigration, newest first: `v1` (1.37, by upstream's sources),
 * `v1beta1` (1.35+, behind its gate).
 */
export const IN_TREE_MIGRATION_API_VERSIONS = [
  'storagemigration.k8s.io/v1',
  'storagemigration.k8s.io/v1beta1',
] as const;

/** What the migrator needs from a client (`RestClient` has it all). */
export interface MigrationClient {
  create(obj: KubeObject, options?: { readonly fieldManager?: string }): Promise<KubeObject>;
  delete(ref: ResourceRef, name: string, namespace?: string): Promise<void>;
  listPage(ref: ResourceRef, options?: ListOptions & { readonly continue?: string }): Promise<ListPage>;
  get(ref: ResourceRef, name: string, namespace?: string): Promise<KubeObject>;
  replace(obj: KubeObject, options?: { readonly fieldManager?: string }): Promise<KubeObject>;
  replaceStatus(obj: KubeObject, options?: { readonly fieldManager?: string }): Promise<KubeObject>;
  patch(
    ref: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Patch,
    options?: PatchOptions,
  ): Promise<KubeObject>;
}

/** Options of {@link StorageVersionMigrator}. */
export interface StorageVersionMigratorOptions {
  readonly client: MigrationClient;
  /** The CRD, `<plural>.<group>`. */
  readonly crdName: string;
  /** The kind, at any served version (objects are read and written at it; they are stored at the storage version). */
  readonly resource: ResourceRef;
  /** Objects per list request. @default 100 */
  readonly pageSize?: number;
  /** Object rewrites per second. @default 20 */
  readonly maxWritesPerSecond?: number;
  /** @default - a private registry */
  readonly registry?: prom.Registry;
  /** @default - silent */
  readonly logger?: Logger;
  /** Field manager of the rewrites. @default 'storage-version-migrator' */
  readonly fieldManager?: string;
  /**
   * Whether to use Kubernetes' in-tree StorageVersionMigration where the cluster serves it (see the module docs);
   * `false` always rewrites the objects itself.
   * @default true
   */
  readonly inTree?: boolean;
  /**
   * Where the migration's steps are recorded as Events about the CRD (events.k8s.io/v1; a cluster-scoped object's
   * Events are in the `default` namespace): started (`StorageMigrationStarted`), succeeded (`StorageMigrated`),
   * failed (`StorageMigrationFailed`, Warning) and, in-tree, started again after the CRD changed
   * (`StorageMigrationRestarted`). Each once per step (a pass of its own, or the in-tree migration's start and end),
   * none while an in-tree migration runs. `setupConversion` gives the manager's recorder when the contract has
   * `events`.
   * @default - no Events
   */
  readonly recorder?: { event(regarding: KubeObject, input: EventInput): Promise<void> };
}

/** The outcome of one pass. */
export interface MigrationResult {
  /**
   * `UpToDate`: nothing to do; `Migrated`: storedVersions trimmed; `Failed`: some objects could not be rewritten (or
   * the in-tree migration failed); `Migrating`: the in-tree migration runs, a later pass finishes it.
   */
  readonly state: 'UpToDate' | 'Migrated' | 'Failed' | 'Migrating';
  readonly storageVersion: string;
  /** storedVersions before the pass. */
  readonly storedVersionsBefore: readonly string[];
  /** Objects rewritten (or found already rewritten: 409/404) in this pass. */
  readonly rewritten: number;
  readonly failed: number;
  /** Whether the pass continued from a token a previous process left. */
  readonly resumed: boolean;
  /** The in-tree StorageVersionMigration the pass used (`apiVersion name`), when it used one. */
  readonly inTree?: string;
}

interface Progress {
  readonly storageVersion: string;
  readonly continue?: string;
  readonly rewritten: number;
}

interface Crd extends KubeObject {
  spec: { group: string; names: { plural: string }; versions: { name: string; storage: boolean; served: boolean }[] };
  status?: { storedVersions?: string[]; conditions?: Condition[]; [k: string]: unknown };
}

/** Metrics of the migrator (one set per registry). */
class MigrationMetrics {
  readonly objects: prom.Counter<'crd' | 'result'>;
  readonly storedVersions: prom.Gauge<'crd'>;
  readonly complete: prom.Gauge<'crd'>;
  readonly inTree: prom.Gauge<'crd'>;

  constructor(registry: prom.Registry) {
    const existing = <T>(name: string) => registry.getSingleMetric(name) as T | undefined;
    this.objects =
      existing('storage_version_migration_objects_total') ??
      new prom.Counter({
        name: 'storage_version_migration_objects_total',
        help: 'Custom resources handled by the storage version migration, by result (rewritten, conflict, gone, failed).',
        labelNames: ['crd', 'result'],
        registers: [registry],
      });
    this.storedVersions =
      existing('storage_version_migration_stored_versions') ??
      new prom.Gauge({
        name: 'storage_version_migration_stored_versions',
        help: "Number of versions in the CRD's status.storedVersions (1 once migrated).",
        labelNames: ['crd'],
        registers: [registry],
      });
    this.complete =
      existing('storage_version_migration_complete') ??
      new prom.Gauge({
        name: 'storage_version_migration_complete',
        help: "1 when the CRD's status.storedVersions is only its storage version, else 0.",
        labelNames: ['crd'],
        registers: [registry],
      });
    this.inTree =
      existing('storage_version_migration_in_tree') ??
      new prom.Gauge({
        name: 'storage_version_migration_in_tree',
        help: "1 when the last pass used Kubernetes' in-tree StorageVersionMigration, 0 when it rewrote the objects itself.",
        labelNames: ['crd'],
        registers: [registry],
      });
  }
}

/** See module docs. */
export class StorageVersionMigrator {
  private readonly metrics: MigrationMetrics;
  private readonly logger: Logger;
  private readonly pageSize: number;
  private readonly writeIntervalMs: number;
  private readonly fieldManager: string;
  private lastWrite = 0;

  constructor(private readonly options: StorageVersionMigratorOptions) {
    this.metrics = new MigrationMetrics(options.registry ?? new prom.Registry());
    this.logger = options.logger ?? silentLogger;
    this.pageSize = options.pageSize ?? 100;
    const rate = options.maxWritesPerSecond ?? 20;
    if (!(rate > 0)) throw new Error(`maxWritesPerSecond: must be > 0, got ${rate}`);
    this.writeIntervalMs = 1000 / rate;
    this.fieldManager = options.fieldManager ?? 'storage-version-migrator';
  }

  /** One pass: nothing when storedVersions is only the storage version, else rewrite every object and trim. */
  async runOnce(signal?: AbortSignal): Promise<MigrationResult> {
    const { client, crdName } = this.options;
    let crd = (await client.get(CRD_RESOURCE, crdName)) as Crd;
    const storageVersion = crd.spec.versions.find((v) => v.storage)?.name;
    if (!storageVersion) throw new Error(`CRD ${crdName} has no storage version`);
    const before = [...(crd.status?.storedVersions ?? [])];
    this.metrics.storedVersions.set({ crd: crdName }, before.length);
    const base = { storageVersion, storedVersionsBefore: before, resumed: false };
    if (before.length === 1 && before[0] === storageVersion) {
      this.metrics.complete.set({ crd: crdName }, 1);
      const mine = crd.status?.conditions?.find((c) => c.type === MIGRATED_CONDITION);
      if (mine && mine.status !== 'True') return this.finishTrimmed(crd, storageVersion, before);
      return { ...base, state: 'UpToDate', rewritten: 0, failed: 0 };
    }
    this.metrics.complete.set({ crd: crdName }, 0);

    if (this.options.inTree !== false) {
      const inTree = await this.inTreePass(crd, storageVersion, before);
      if (inTree) return inTree;
    }
    this.metrics.inTree.set({ crd: crdName }, 0);

    const saved = parseProgress(crd.metadata?.annotations?.[MIGRATION_ANNOTATION]);
    const resume = saved?.storageVersion === storageVersion ? saved : undefined;
    let cont = resume?.continue;
    let rewritten = resume?.rewritten ?? 0;
    let failed = 0;
    let firstError: string | undefined;
    const old = before.filter((v) => v !== storageVersion).join(', ');
    this.logger.info('storage version migration started', {
      crd: crdName,
      storageVersion,
      storedVersions: before,
      resumed: !!resume,
    });
    this.record(
      crd,
      'Normal',
      'StorageMigrationStarted',
      `rewriting every object stored as ${old} as ${storageVersion}${resume ? `, resuming after ${rewritten}` : ''}`,
    );
    crd = await this.report(crd, {
      status: 'False',
      reason: 'Migrating',
      message: `rewriting every object stored as ${old} as ${storageVersion}: ${rewritten} so far`,
    });

    const ref = this.options.resource;
    if (parseApiVersion(ref.apiVersion).group !== (crd.spec as { group?: string }).group) {
      throw new Error(`resource ${ref.apiVersion} ${ref.kind} is not in the group of CRD ${crdName}`);
    }
    let page: ListPage;
    do {
      if (signal?.aborted) throw new Error('storage version migration aborted');
      try {
        page = await client.listPage(ref, { limit: this.pageSize, continue: cont });
      } catch (err) {
        if (cont && isGone(err)) {
          // the token expired (etcd compaction): a new pass from the start, rewriting is idempotent
          this.logger.info('storage migration continue token expired, starting the pass over', { crd: crdName });
          cont = undefined;
          continue;
        }
        throw err;
      }
      for (const item of page.items) {
        if (signal?.aborted) throw new Error('storage version migration aborted');
        const result = await this.rewrite(item);
        this.metrics.objects.inc({ crd: crdName, result: result.kind });
        if (result.kind === 'failed') {
          failed++;
          firstError ??= `${item.metadata?.namespace ?? ''}/${item.metadata?.name}: ${result.error}`;
        } else {
          rewritten++;
        }
      }
      cont = page.continue;
      crd = await this.saveProgress(crd, cont ? { storageVersion, continue: cont, rewritten } : undefined);
      if (cont) {
        crd = await this.report(crd, {
          status: 'False',
          reason: 'Migrating',
          message: `rewriting every object stored as ${old} as ${storageVersion}: ${rewritten} so far`,
        });
      }
    } while (cont);

    if (failed > 0) {
      await this.report(crd, {
        status: 'False',
        reason: 'Failed',
        message: `${failed} object(s) could not be rewritten as ${storageVersion} (first: ${firstError}); retrying later`,
      });
      this.logger.error('storage version migration incomplete', { crd: crdName, failed, firstError });
      this.record(
        crd,
        'Warning',
        'StorageMigrationFailed',
        `${failed} object(s) could not be rewritten as ${storageVersion} (first: ${firstError}); retrying later`,
      );
      return { ...base, resumed: !!resume, state: 'Failed', rewritten, failed };
    }
    await this.trim(storageVersion, `${rewritten} rewritten`);
    this.metrics.storedVersions.set({ crd: crdName }, 1);
    this.metrics.complete.set({ crd: crdName }, 1);
    this.logger.info('storage version migration complete', { crd: crdName, storageVersion, rewritten, removed: old });
    this.record(
      crd,
      'Normal',
      'StorageMigrated',
      `${rewritten} object(s) rewritten as ${storageVersion}; status.storedVersions trimmed to [${storageVersion}]`,
    );
    return { ...base, resumed: !!resume, state: 'Migrated', rewritten, failed };
  }

  /** The no-op update of one object. */
  private async rewrite(
    item: KubeObject,
  ): Promise<{ kind: 'rewritten' | 'conflict' | 'gone' } | { kind: 'failed'; error: string }> {
    const wait = this.lastWrite + this.writeIntervalMs - Date.now();
    if (wait > 0) await sleep(wait);
    this.lastWrite = Date.now();
    try {
      await this.options.client.replace(item, { fieldManager: this.fieldManager });
      return { kind: 'rewritten' };
    } catch (err) {
      if (isConflict(err)) return { kind: 'conflict' };
      if (isNotFound(err)) return { kind: 'gone' };
      return { kind: 'failed', error: (err as Error).message };
    }
  }

  /**
   * Where the cluster serves Kubernetes' in-tree StorageVersionMigration: its resource and our migration object (when
   * created). Undefined where it serves none, or the operator may not read one (403): then the operator rewrites the
   * objects itself.
   */
  private async findInTree(name: string): Promise<{ ref: ResourceRef; existing?: KubeObject } | undefined> {
    for (const apiVersion of IN_TREE_MIGRATION_API_VERSIONS) {
      const ref = { apiVersion, kind: 'StorageVersionMigration' };
      try {
        return { ref, existing: await this.options.client.get(ref, name) };
      } catch (err) {
        // a 404 on the object's own path: served, not created yet; on the group-version's discovery path (a Status
        // NotFound too, measured on 1.36.3) or a kind discovery does not list: not served, try the next version
        if (err instanceof ApiError && err.code === 404 && err.path.endsWith(`/storageversionmigrations/${name}`)) {
          return { ref };
        }
        if (isForbidden(err)) {
          this.logger.info('in-tree storage version migration not permitted, rewriting the objects instead', {
            crd: this.options.crdName,
            error: (err as Error).message,
          });
          return undefined;
        }
        if (isNotFound(err) || /is not served by/.test((err as Error).message)) continue;
        throw err;
      }
    }
    return undefined;
  }

  /**
   * One pass through Kubernetes' in-tree StorageVersionMigration, or undefined where the cluster serves none (or the
   * operator may not create one): then the operator rewrites the objects itself.
   */
  private async inTreePass(
    crd: Crd,
    storageVersion: string,
    before: readonly string[],
  ): Promise<MigrationResult | undefined> {
    const { client, crdName } = this.options;
    const name = `${storageVersion}.${crdName}`;
    const found = await this.findInTree(name);
    if (!found) return undefined;
    const { ref, existing } = found;
    const result = { storageVersion, storedVersionsBefore: before, resumed: false, rewritten: 0, failed: 0 };
    const inTree = `${ref.apiVersion} ${name}`;
    const old = before.filter((v) => v !== storageVersion).join(', ');
    const migrating = async (message: string): Promise<MigrationResult> => {
      await this.report(crd, { status: 'False', reason: 'Migrating', message });
      return { ...result, state: 'Migrating', inTree };
    };
    const running = `kube-controller-manager rewrites every object stored as ${old} as ${storageVersion} (StorageVersionMigration ${name})`;
    if (!existing) {
      try {
        await client.create(
          {
            apiVersion: ref.apiVersion,
            kind: 'StorageVersionMigration',
            // the CRD's generation, to know at the end whether the CRD changed while kube-controller-manager ran it
            metadata: { name, annotations: { [MIGRATION_GENERATION_ANNOTATION]: String(crd.metadata?.generation) } },
            spec: { resource: { group: crd.spec.group, resource: crd.spec.names.plural } },
          },
          { fieldManager: this.fieldManager },
        );
      } catch (err) {
        if (isForbidden(err)) {
          this.logger.info('in-tree storage version migration not permitted, rewriting the objects instead', {
            crd: crdName,
            error: (err as Error).message,
          });
          return undefined;
        }
        if (!isAlreadyExists(err)) throw err;
      }
      this.logger.info('in-tree storage version migration started', {
        crd: crdName,
        storageVersion,
        migration: inTree,
      });
      this.record(
        crd,
        'Normal',
        'StorageMigrationStarted',
        `started ${inTree} at CRD generation ${crd.metadata?.generation}: ${running}`,
      );
    }
    this.metrics.inTree.set({ crd: crdName }, 1);
    const holds = conditionHolds(existing);
    // kube-controller-manager records the outcome on the CRD before it marks the migration no longer Running: until
    // then it is not finished (1.36.3 trims storedVersions itself too, but may do so after it marked it Succeeded)
    if (holds('Running') || (!holds('Succeeded') && !holds('Failed'))) return migrating(running);
    const succeeded = holds('Succeeded');
    if (succeeded) {
      // kube-controller-manager (1.36.3, measured) marks the migration Succeeded first and records it on the CRD after:
      // its StorageMigrating condition, and storedVersions trimmed where the CRD did not change. Wait for that record
      // (where this kube-controller-manager keeps one, and for a minute at most), then read it, not `crd`, which this
      // pass read before.
      const now = (await client.get(CRD_RESOURCE, crdName)) as Crd;
      const record = now.status?.conditions?.find((c) => c.type === KCM_MIGRATION_CONDITION);
      const since = Date.now() - Date.parse(succeeded.lastTransitionTime ?? '');
      if (record?.reason === 'MigrationRunning' && !(since > KCM_RECORD_WAIT_MS)) return migrating(running);
      const stored = now.status?.storedVersions ?? [];
      if (stored.length === 1 && stored[0] === storageVersion) return this.finishTrimmed(now, storageVersion, stored);
    }
    await this.deleteInTree(ref, name);
    const failed = holds('Failed');
    if (failed) {
      await this.report(crd, {
        status: 'False',
        reason: 'Failed',
        message: `the in-tree StorageVersionMigration ${name} failed (${failed.message || failed.reason}); retrying later`,
      });
      this.logger.error('in-tree storage version migration failed', { crd: crdName, migration: inTree, failed });
      this.record(crd, 'Warning', 'StorageMigrationFailed', `${inTree} failed (${failed.message || failed.reason})`);
      return { ...result, state: 'Failed', failed: 1, inTree };
    }
    // Succeeded, and storedVersions still lists old versions (a kube-controller-manager that does not trim them, or
    // one that saw the CRD change meanwhile): trim only if the CRD did not change since the migration was created,
    // as kube-controller-manager's own rule is; else a new migration starts on the next pass
    const generation = existing!.metadata?.annotations?.[MIGRATION_GENERATION_ANNOTATION];
    if (generation !== String(crd.metadata?.generation)) {
      const restart = `the CRD changed (generation ${generation} to ${crd.metadata?.generation}) while StorageVersionMigration ${name} ran; starting a new one`;
      this.record(crd, 'Normal', 'StorageMigrationRestarted', restart);
      return migrating(restart);
    }
    await this.trim(storageVersion, `by the in-tree StorageVersionMigration ${name}`);
    this.record(
      crd,
      'Normal',
      'StorageMigrated',
      `${inTree} succeeded; status.storedVersions trimmed to [${storageVersion}]`,
    );
    this.metrics.storedVersions.set({ crd: crdName }, 1);
    this.metrics.complete.set({ crd: crdName }, 1);
    this.logger.info('storage version migration complete', { crd: crdName, storageVersion, migration: inTree });
    return { ...result, state: 'Migrated', inTree };
  }

  /**
   * storedVersions is already `[storageVersion]` but our condition still says the migration is not done: someone
   * else trimmed it, in particular kube-controller-manager at the end of the in-tree migration this migrator started
   * (1.36.3 does, measured). The finished migration object is deleted (a later migration to this version starts a
   * new one) and the condition set True.
   */
  private async finishTrimmed(crd: Crd, storageVersion: string, before: readonly string[]): Promise<MigrationResult> {
    const name = `${storageVersion}.${this.options.crdName}`;
    const base = { storageVersion, storedVersionsBefore: before, resumed: false, rewritten: 0, failed: 0 };
    const found = this.options.inTree === false ? undefined : await this.findInTree(name);
    const inTree = found?.existing ? `${found.ref.apiVersion} ${name}` : undefined;
    if (found?.existing) {
      const holds = conditionHolds(found.existing);
      if (holds('Running')) return { ...base, state: 'Migrating', inTree };
      await this.deleteInTree(found.ref, name);
    }
    const how = inTree
      ? `by the in-tree StorageVersionMigration ${name}, whose end trimmed status.storedVersions`
      : 'status.storedVersions was trimmed by another client';
    if (inTree) {
      this.record(
        crd,
        'Normal',
        'StorageMigrated',
        `${inTree} succeeded; kube-controller-manager trimmed status.storedVersions to [${storageVersion}]`,
      );
    }
    await this.report(crd, {
      status: 'True',
      reason: 'Migrated',
      message: `every object is stored as ${storageVersion} (${how}); status.storedVersions is [${storageVersion}]`,
    });
    this.logger.info('storage version migration complete', { crd: this.options.crdName, storageVersion, inTree });
    return { ...base, state: 'Migrated', inTree };
  }

  /** An Event about the CRD, when the migrator has a recorder (which never throws: a failed write is logged). */
  private record(crd: Crd, type: EventInput['type'], reason: string, note: string): void {
    void this.options.recorder?.event(crd, { type, reason, action: 'MigrateStorageVersion', note });
  }

  private async deleteInTree(ref: ResourceRef, name: string): Promise<void> {
    try {
      await this.options.client.delete(ref, name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  /** storedVersions := [storageVersion], if the storage version is still that (optimistic concurrency). */
  private async trim(storageVersion: string, how: string): Promise<void> {
    const { client, crdName } = this.options;
    for (let attempt = 0; ; attempt++) {
      const crd = (await client.get(CRD_RESOURCE, crdName)) as Crd;
      const now = crd.spec.versions.find((v) => v.storage)?.name;
      if (now !== storageVersion) {
        throw new Error(
          `CRD ${crdName}: storage version changed from ${storageVersion} to ${now} during the migration; the next pass migrates to ${now}`,
        );
      }
      const conditions = setCondition(crd.status?.conditions, {
        type: MIGRATED_CONDITION,
        status: 'True',
        reason: 'Migrated',
        message: `every object is stored as ${storageVersion} (${how}); status.storedVersions is [${storageVersion}]`,
      });
      try {
        await client.replaceStatus(
          { ...crd, status: { ...crd.status, storedVersions: [storageVersion], conditions } },
          { fieldManager: this.fieldManager },
        );
        return;
      } catch (err) {
        if (!isConflict(err) || attempt >= 5) throw err;
      }
    }
  }

  private async report(
    crd: Crd,
    condition: { status: 'True' | 'False'; reason: string; message: string },
  ): Promise<Crd> {
    for (let attempt = 0; ; attempt++) {
      const current = crd.status?.conditions?.find((c) => c.type === MIGRATED_CONDITION);
      if (
        current &&
        current.status === condition.status &&
        current.reason === condition.reason &&
        current.message === condition.message
      ) {
        return crd;
      }
      // computed from the CRD as read in this attempt: after a conflict, from the one re-read, so a condition another
      // controller wrote meanwhile (kube-controller-manager's StorageMigrating, which it needs to trim) is kept
      const conditions = setCondition(crd.status?.conditions, { type: MIGRATED_CONDITION, ...condition });
      try {
        return (await this.options.client.replaceStatus(
          { ...crd, status: { ...crd.status, conditions } },
          { fieldManager: this.fieldManager },
        )) as Crd;
      } catch (err) {
        if (!isConflict(err) || attempt >= 5) throw err;
        crd = (await this.options.client.get(CRD_RESOURCE, this.options.crdName)) as Crd;
      }
    }
  }

  private async saveProgress(crd: Crd, progress: Progress | undefined): Promise<Crd> {
    const current = crd.metadata?.annotations?.[MIGRATION_ANNOTATION];
    const next = progress ? JSON.stringify(progress) : undefined;
    if (current === next) return crd;
    const patch: Patch = {
      type: 'merge',
      body: { metadata: { annotations: { [MIGRATION_ANNOTATION]: next ?? null } } },
    };
    return (await this.options.client.patch(CRD_RESOURCE, this.options.crdName, undefined, patch, {
      fieldManager: this.fieldManager,
    })) as Crd;
  }
}

function parseProgress(text: string | undefined): Progress | undefined {
  if (!text) return undefined;
  try {
    const p = JSON.parse(text);
    return typeof p?.storageVersion === 'string' && typeof p?.rewritten === 'number' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Options of {@link storageMigrationRunnable}. */
export interface StorageMigrationRunnableOptions extends StorageVersionMigratorOptions {
  /** Time between passes (a pass with nothing to do makes one GET). @default 300000 (5 min) */
  readonly intervalMs?: number;
  /** Delay before retrying a failed pass. @default 30000 */
  readonly retryMs?: number;
  /** Delay before looking again at an in-tree migration in progress. @default 5000 */
  readonly pollMs?: number;
}

/** The migrator as a leader-only runnable: a pass at start, then every `intervalMs`, a failed one retried. */
export function storageMigrationRunnable(options: StorageMigrationRunnableOptions): {
  name: string;
  migrator: StorageVersionMigrator;
  start(): void;
  stop(): Promise<void>;
} {
  const migrator = new StorageVersionMigrator(options);
  const logger = options.logger ?? silentLogger;
  let abort: AbortController | undefined;
  let running: Promise<void> | undefined;
  return {
    name: `storage-version-migration/${options.crdName}`,
    migrator,
    start() {
      if (running) return;
      const ctl = (abort = new AbortController());
      running = (async () => {
        while (!ctl.signal.aborted) {
          let delay = options.intervalMs ?? 300_000;
          try {
            const result = await migrator.runOnce(ctl.signal);
            if (result.state === 'Failed') delay = options.retryMs ?? 30_000;
            if (result.state === 'Migrating') delay = options.pollMs ?? 5_000;
          } catch (err) {
            if (ctl.signal.aborted) break;
            logger.error('storage version migration failed', { crd: options.crdName, error: err });
            delay = options.retryMs ?? 30_000;
          }
          await sleep(delay, ctl.signal);
        }
      })();
    },
    async stop() {
      abort?.abort();
      await running;
      running = undefined;
    },
  };
}

/** Whether a condition of an in-tree StorageVersionMigration is True (the condition then). */
function conditionHolds(svm: KubeObject | undefined): (type: string) => Condition | undefined {
  const conditions = (svm?.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
  return (type) => conditions.find((c) => c.type === type && c.status === 'True');
}
