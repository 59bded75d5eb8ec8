/**
 * SampleDB's versions, hub and spoke: v2 (the storage version, `restoreFrom: { sampleDB, backup }`) is the
 * hub the controller reconciles; v1 (0.1.0, `restoreFrom: <backup name>`) converts to and from it.
 *
 * v1 `restoreFrom: X` restores backup X of the database itself, which is v2's `{ backup: X }` (sampleDB
 * defaults to the database itself). What v1 cannot express (restoring from another SampleDB, replication,
 * failover and switchover, the instances and primary in status) is dropped from the v1 object and kept by
 * the runtime in the annotation `database.example.com/conversion-data`, so a v1 round trip loses nothing.
 * Fields are picked by name: a field v2 gains later is never copied into v1 by accident.
 */
import type {
  SampleDBV1Object,
  SampleDBV1Spec,
  SampleDBV2Object,
  SampleDBV2Spec,
} from '../../imports/database.example.com';
import { defineConversion } from '../../runtime';

/** The optional spec fields v1 and v2 share unchanged (and `version`, required in both). */
const SHARED_SPEC = [
  'replicas',
  'backupSchedule',
  'backupRetention',
  'storage',
  'backupStorage',
  'volumeRetention',
] as const;
/** The status fields v1 and v2 share unchanged. */
const SHARED_STATUS = [
  'replicas',
  'readyReplicas',
  'labelSelector',
  'phase',
  'currentVersion',
  'lastBackup',
  'restoredFrom',
  'observedGeneration',
  'conditions',
] as const;

function pick<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (from[k] !== undefined) out[k] = from[k];
  return out;
}

/** v1 → v2. */
export function sampleDbV1ToV2(v1: SampleDBV1Object): SampleDBV2Object {
  const { spec, status, apiVersion: _a, ...rest } = v1;
  const hub: SampleDBV2Object = { ...rest, apiVersion: 'database.example.com/v2' };
  if (spec) {
    const v2spec: SampleDBV2Spec = { version: spec.version, ...pick(spec, SHARED_SPEC) };
    if (spec.restoreFrom !== undefined) v2spec.restoreFrom = { backup: spec.restoreFrom };
    hub.spec = v2spec;
  }
  if (status) hub.status = pick(status, SHARED_STATUS);
  return hub;
}

/** v2 → v1. */
export function sampleDbV2ToV1(v2: SampleDBV2Object): SampleDBV1Object {
  const { spec, status, apiVersion: _a, ...rest } = v2;
  const spoke: SampleDBV1Object = { ...rest, apiVersion: 'database.example.com/v1' };
  if (spec) {
    const v1spec: SampleDBV1Spec = { version: spec.version, ...pick(spec, SHARED_SPEC) };
    const from = spec.restoreFrom;
    // v1 can only name a backup of the database itself
    if (from && (from.sampleDB === undefined || from.sampleDB === v2.metadata?.name)) v1spec.restoreFrom = from.backup;
    spoke.spec = v1spec;
  }
  if (status) spoke.status = pick(status, SHARED_STATUS);
  return spoke;
}

/** The conversions the operator's webhook serves for SampleDB. */
export const SAMPLEDB_CONVERSION = defineConversion<SampleDBV2Object, { v1: SampleDBV1Object }>({
  group: 'database.example.com',
  kind: 'SampleDB',
  hub: 'v2',
  spokes: { v1: { toHub: sampleDbV1ToV2, fromHub: sampleDbV2ToV1 } },
});
