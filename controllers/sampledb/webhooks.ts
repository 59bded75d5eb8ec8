/**
 * SampleDB's admission webhooks: what the CRD's own CEL rules cannot check, because it needs other
 * objects.
 *
 * - Validating (CREATE, UPDATE): a `spec.restoreFrom` that is new or changed must name a restore source
 *   that exists in the namespace: a SampleDB, or a deleted one whose backup volume `<sampleDB>-backups`
 *   remains. For an existing SampleDB the backup must be one it made (a succeeded backup Job, or
 *   `status.lastBackup`); when the SampleDB has a backup schedule an unknown name is admitted with a
 *   warning instead, because the CronJob keeps only the last 3 Jobs while older dumps may still be on the volume.
 * - Defaulting (CREATE): `spec.storage` and `spec.storageClassName`, when omitted, from the namespace's
 *   annotations `database.example.com/default-storage` and `database.example.com/default-storage-class`
 *   (storage falls back to 1Gi; the class to the cluster's default, by leaving it unset).
 *
 * Handlers read the operator's informer caches (SampleDBs, Jobs, PVCs) and the Namespace by name; they
 * write nothing (the webhooks are `sideEffects: None`).
 */
import { observeBackups } from './backups';
import { Job, LABEL_BACKUP_TYPE, LABEL_INSTANCE, names, SampleDB } from './types';
import { AdmissionRequest, AdmissionVerdict, allowed, denied, KubeClient, KubeObject, Store } from '../../runtime';

/** Namespace annotation: the default data volume size of SampleDBs created in it. */
export const ANNOTATION_DEFAULT_STORAGE = 'database.example.com/default-storage';
/** Namespace annotation: the default StorageClass of SampleDBs created in it. */
export const ANNOTATION_DEFAULT_STORAGE_CLASS = 'database.example.com/default-storage-class';
/** `spec.storage` when neither the object nor its namespace says. */
export const DEFAULT_STORAGE = '1Gi';

const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' } as const;

/** What the handlers read. */
export interface SampleDbWebhookDeps {
  readonly sampledbs: Store<SampleDB>;
  readonly jobs: Store<Job>;
  readonly pvcs: Store<KubeObject>;
  /** Reads Namespaces by name (uncached: one GET per created SampleDB). */
  readonly client: KubeClient;
}

/** The validating handler (see module docs). */
export function validateSampleDb(deps: SampleDbWebhookDeps): (req: AdmissionRequest<SampleDB>) => AdmissionVerdict {
  return (req) => {
    const from = req.object?.spec?.restoreFrom;
    const namespace = req.namespace ?? req.object?.metadata?.namespace;
    if (!from || !namespace) return allowed();
    const before = req.oldObject?.spec?.restoreFrom;
    // Only a new or changed restoreFrom is checked: an old one may name a backup pruned since, and must not block updates.
    if (before && before.backup === from.backup && before.sampleDB === from.sampleDB) return allowed();
    const self = req.object?.metadata?.name ?? '';
    const sourceName = from.sampleDB ?? self;
    const field = from.sampleDB ? 'spec.restoreFrom.sampleDB' : 'spec.restoreFrom';
    const source =
      sourceName === self && req.operation === 'CREATE'
        ? undefined
        : deps.sampledbs.get({ namespace, name: sourceName });
    const volume = deps.pvcs.get({ namespace, name: names.backupPvc(sourceName) });
    if (!source) {
      if (volume) {
        return allowed([
          `${field}: SampleDB '${sourceName}' is deleted; its backup volume ${names.backupPvc(sourceName)} remains, so backup '${from.backup}' is looked up there when the restore runs`,
        ]);
      }
      return denied(
        `${field}: SampleDB '${sourceName}' does not exist in namespace '${namespace}', and no backup volume ${names.backupPvc(sourceName)} of a deleted one remains`,
      );
    }
    const jobs = deps.jobs
      .list(namespace)
      .filter((j) => j.metadata.labels?.[LABEL_INSTANCE] === sourceName && j.metadata.labels?.[LABEL_BACKUP_TYPE]);
    const known = new Set(jobs.filter((j) => j.status?.succeeded).map((j) => j.metadata.name));
    const last = observeBackups(jobs).lastSuccess?.name ?? source.status?.lastBackup?.name;
    if (last) known.add(last);
    if (known.has(from.backup)) return allowed();
    const list = known.size ? `its backups: ${[...known].sort().join(', ')}` : 'it has made no backup yet';
    if (source.spec.backupSchedule) {
      return allowed([
        `spec.restoreFrom.backup: '${from.backup}' is not among the recent backups of SampleDB '${sourceName}' (${list}); an older scheduled backup may still be on its volume`,
      ]);
    }
    return denied(`spec.restoreFrom.backup: SampleDB '${sourceName}' has no backup '${from.backup}' (${list})`);
  };
}

/** The defaulting handler (see module docs). */
export function defaultSampleDb(
  deps: Pick<SampleDbWebhookDeps, 'client'>,
): (db: SampleDB, req: AdmissionRequest<SampleDB>) => Promise<SampleDB | AdmissionVerdict> {
  return async (db, req) => {
    const namespace = req.namespace ?? db.metadata?.namespace;
    if (db.spec.storage && db.spec.storageClassName) return db;
    const annotations = namespace ? ((await deps.client.get(NAMESPACE, namespace)).metadata?.annotations ?? {}) : {};
    const size = annotations[ANNOTATION_DEFAULT_STORAGE];
    // The CRD's own patterns, so a bad annotation is reported as the annotation, not as the SampleDB's field.
    if (!db.spec.storage && size && !/^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/.test(size)) {
      return denied(
        `namespace ${namespace} annotation ${ANNOTATION_DEFAULT_STORAGE}: must be a quantity like 10Gi, got '${size}' (spec.storage was to be defaulted from it)`,
        { code: 400, reason: 'BadRequest' },
      );
    }
    const storageClass = annotations[ANNOTATION_DEFAULT_STORAGE_CLASS];
    if (!db.spec.storageClassName && storageClass && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(storageClass)) {
      return denied(
        `namespace ${namespace} annotation ${ANNOTATION_DEFAULT_STORAGE_CLASS}: must be a StorageClass name, got '${storageClass}'`,
        { code: 400, reason: 'BadRequest' },
      );
    }
    db.spec.storage ??= size || DEFAULT_STORAGE;
    if (!db.spec.storageClassName && storageClass) db.spec.storageClassName = storageClass;
    return db;
  };
}
