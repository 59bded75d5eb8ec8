/**
 * Auto-tuning: the PostgreSQL settings of a database, derived from its container's memory and its data volume,
 * merged with the user's `spec.postgresql.parameters` (which win). Pure: the same spec gives the same settings.
 *
 * Formulas (memory M = `spec.resources.limits.memory`, else `requests.memory`, in whole MiB; docs/sampledb-autopilot.md):
 * - `shared_buffers` = M / 5 — Zalando Spilo on Kubernetes (configure_spilo.py: `sb_ratio = 5 if USE_KUBERNETES`; PGTune's
 *   M / 4 is for a whole machine, a container's limit also has to hold every backend's private memory);
 * - `max_connections` = min(max(100, M / 30), 1000) — Spilo ("1 connection per 30 MB, at least 100, at most 1000");
 * - `effective_cache_size` = 3M / 4 — PGTune (web/OLTP);
 * - `maintenance_work_mem` = M / 16, at most 2 GiB — PGTune (its cap is 8 GB on large servers; autovacuum workers each
 *   take as much by default, so the container keeps the 2 GiB cap PGTune applies to autovacuum_work_mem);
 * - `work_mem` = (M − shared_buffers) / ((max_connections + 8) × 3), at least 64 kB (PostgreSQL's minimum) — PGTune's
 *   formula (8 = max_worker_processes' default); PGTune floors it at 4 MB, which under a hard container limit would
 *   promise more memory than there is;
 * - `wal_buffers` = 3 % of shared_buffers, between 32 kB and 16 MB — PGTune (PostgreSQL's own auto-tuning rule);
 * - `max_wal_size` = min(4 GiB, data volume / 4), at least 64 MB; `min_wal_size` = min(1 GiB, max_wal_size / 4), at
 *   least 32 MB — PGTune's web sizes (1 GB / 4 GB), bounded by the volume: `max_wal_size` is a soft limit on the WAL
 *   kept between checkpoints, and 4 GB of WAL on the default 1 GiB volume would fill it.
 *
 * Nothing is derived without `spec.resources` (a SampleDB written before it existed keeps PostgreSQL's defaults) or
 * with `spec.postgresql.autoTune: false`.
 */
import { Database } from './types';

/** Settings the operator owns (instance-script.ts and replication): `spec.postgresql.parameters` may not set them. */
export const OPERATOR_OWNED_PARAMETERS: readonly string[] = [
  // the instance script's command line and files
  'listen_addresses',
  'port',
  'hba_file',
  'ident_file',
  'config_file',
  'data_directory',
  'external_pid_file',
  'unix_socket_directories',
  'wal_log_hints',
  'wal_keep_size',
  'hot_standby',
  'hot_standby_feedback',
  'wal_receiver_timeout',
  // standbys reply every second: a primary's self-fencing counts a recent reply as reaching a standby
  'wal_receiver_status_interval',
  'wal_retrieve_retry_interval',
  'primary_conninfo',
  'primary_slot_name',
  // replication and failover
  'wal_level',
  'synchronous_standby_names',
  'restore_command',
  'recovery_target',
  'recovery_target_lsn',
  'recovery_target_name',
  'recovery_target_time',
  'recovery_target_xid',
  'recovery_target_timeline',
  'recovery_target_action',
];

/** Settings other steps write with ALTER SYSTEM (replication.ts): parameter application leaves them alone. */
export const OPERATOR_WRITTEN_PARAMETERS: readonly string[] = ['synchronous_standby_names'];

/** Settings a reload cannot change (PostgreSQL context `postmaster`) among those the operator derives. */
export const RESTART_PARAMETERS: readonly string[] = ['shared_buffers', 'max_connections', 'wal_buffers'];

/** Container resources when `spec.resources` is absent (those of SampleDB 0.1.0). */
export const DEFAULT_RESOURCES = { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '1Gi' } } as const;

const UNITS: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** Bytes of a Kubernetes quantity as the CRD admits it (`1Gi`, `512M`, `1.5Gi`); undefined otherwise. */
export function quantityBytes(q: string | undefined): number | undefined {
  const m = q === undefined ? null : /^([0-9]+(?:\.[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$/.exec(q);
  return m ? Math.floor(Number(m[1]) * UNITS[m[2] ?? '']) : undefined;
}

/** The container resources of the database pods. */
export function containerResources(db: Database): {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
} {
  const r = db.spec.resources;
  if (!r) return { requests: { ...DEFAULT_RESOURCES.requests }, limits: { ...DEFAULT_RESOURCES.limits } };
  return { ...(r.requests ? { requests: { ...r.requests } } : {}), ...(r.limits ? { limits: { ...r.limits } } : {}) };
}

/** The memory tuning is derived from (bytes), or undefined when nothing is derived. */
export function tuningMemory(db: Database): number | undefined {
  if (db.spec.postgresql?.autoTune === false || !db.spec.resources) return undefined;
  return quantityBytes(db.spec.resources.limits?.memory ?? db.spec.resources.requests?.memory);
}

const MiB = 2 ** 20;
const kB = 1024;

/** `n` bytes as PostgreSQL memory units: whole MB when exact or large, else kB. */
function pgMemory(bytes: number): string {
  return bytes >= 16 * MiB ? `${Math.floor(bytes / MiB)}MB` : `${Math.max(1, Math.floor(bytes / kB))}kB`;
}

/** Settings derived from `memory` bytes and a data volume of `volume` bytes (see the module docs). */
export function derivedParameters(memory: number, volume: number): Record<string, string> {
  const mb = Math.floor(memory / MiB);
  const sharedBuffers = Math.floor(mb / 5) * MiB;
  const maxConnections = Math.min(Math.max(100, Math.floor(mb / 30)), 1000);
  const workMem = Math.max(64 * kB, Math.floor((mb * MiB - sharedBuffers) / ((maxConnections + 8) * 3)));
  const walBuffers = Math.min(16 * MiB, Math.max(32 * kB, Math.floor((sharedBuffers * 3) / 100)));
  const maxWal = Math.max(64 * MiB, Math.min(4096 * MiB, Math.floor(volume / 4)));
  const minWal = Math.max(32 * MiB, Math.min(1024 * MiB, Math.floor(maxWal / 4)));
  return {
    shared_buffers: pgMemory(Math.max(sharedBuffers, 128 * kB)),
    max_connections: String(maxConnections),
    effective_cache_size: pgMemory(Math.floor((mb * MiB * 3) / 4)),
    maintenance_work_mem: pgMemory(Math.max(1024 * kB, Math.min(2048 * MiB, Math.floor((mb * MiB) / 16)))),
    work_mem: pgMemory(workMem),
    wal_buffers: pgMemory(walBuffers),
    max_wal_size: pgMemory(maxWal),
    min_wal_size: pgMemory(minWal),
  };
}

/** What the operator applies to every instance: derived settings, overridden by `spec.postgresql.parameters`. */
export function desiredParameters(db: Database): Record<string, string> {
  const memory = tuningMemory(db);
  const derived =
    memory === undefined ? {} : derivedParameters(memory, quantityBytes(db.spec.storage ?? '1Gi') ?? 2 ** 30);
  const user: Record<string, string> = {};
  for (const [k, v] of Object.entries(db.spec.postgresql?.parameters ?? {})) {
    if (v !== undefined && isParameterName(k) && !OPERATOR_OWNED_PARAMETERS.includes(k)) user[k] = v;
  }
  return sortedRecord({ ...derived, ...user });
}

/** A PostgreSQL setting name (also a custom `ext.name`): the only names the operator puts into SQL. */
export function isParameterName(name: string): boolean {
  return /^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/.test(name);
}

function sortedRecord(r: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
}
