/**
 * Pod pieces shared by the StatefulSet and the Jobs: Pod Security "restricted" contexts for the
 * official image's `postgres` user (uid 999), credentials from the Secret, and the Job shape.
 */
import { Database, Desired, Job, labels, names } from './types';
import { controllerReference } from '../../runtime';

/** uid/gid of `postgres` in the official image. */
export const POSTGRES_UID = 999;
export const POSTGRES_PORT = 5432;

/** Pod-level security context (restricted). */
export function podSecurityContext(): Record<string, unknown> {
  return {
    runAsNonRoot: true,
    runAsUser: POSTGRES_UID,
    runAsGroup: POSTGRES_UID,
    fsGroup: POSTGRES_UID,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** Container-level security context (restricted, read-only root filesystem). */
export function containerSecurityContext(): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
  };
}

function secretEnv(db: Database, name: string, key: string): Record<string, unknown> {
  return { name, valueFrom: { secretKeyRef: { name: names.secret(db.metadata.name), key } } };
}

/** Server-side credentials (the official image's POSTGRES_* variables, and the replication user). */
export function serverCredentialEnv(db: Database): Record<string, unknown>[] {
  return [
    secretEnv(db, 'POSTGRES_USER', 'username'),
    secretEnv(db, 'POSTGRES_PASSWORD', 'password'),
    secretEnv(db, 'POSTGRES_DB', 'database'),
    secretEnv(db, 'REPLICATION_USER', 'replicationUsername'),
    secretEnv(db, 'REPLICATION_PASSWORD', 'replicationPassword'),
  ];
}

/** Client credentials and the primary's address (libpq PG* variables), for Jobs. */
export function clientEnv(db: Database): Record<string, unknown>[] {
  const name = db.metadata.name;
  return [
    // The primary, wherever it is after a failover.
    { name: 'PGHOST', value: names.primaryService(name) },
    { name: 'PGPORT', value: String(POSTGRES_PORT) },
    secretEnv(db, 'PGUSER', 'username'),
    secretEnv(db, 'PGPASSWORD', 'password'),
    secretEnv(db, 'PGDATABASE', 'database'),
  ];
}

/**
 * sh: the image's own PostgreSQL binaries first on PATH. In Debian's packages (and the official images built on them)
 * `/usr/bin/psql`, `pg_isready` … are pg_wrapper, a Perl script that picks a cluster's version and then execs
 * `/usr/lib/postgresql/$PG_MAJOR/bin/<tool>`; the official images put that folder after /usr/bin. The wrapper costs
 * several times the tool's own CPU per call, and the kubelet runs a probe every few seconds in every pod (and the
 * instance's fencing loop ran a psql every second): on the CI node they were the largest CPU users after the apiservers
 * (bench/latest/ci-time/). Images without that folder (Alpine, other distributions) keep their PATH.
 */
export function preferVersionBinaries(lib = '/usr/lib/postgresql'): string {
  const dir = `${lib}/$PG_MAJOR/bin`;
  return `if [ -n "\${PG_MAJOR:-}" ] && [ -d "${dir}" ]; then PATH="${dir}:$PATH"; fi`;
}

/** Waits for the primary, then runs `script` (sh). */
export function withWaitForPrimary(script: string): string {
  return `set -eu\n${preferVersionBinaries()}\nuntil pg_isready -q; do echo waiting for "$PGHOST"; sleep 2; done\n${script}`;
}

/** Options of {@link jobFor}. */
export interface JobSpecOptions {
  readonly name: string;
  readonly component: string;
  readonly image: string;
  readonly script: string;
  readonly env?: Record<string, unknown>[];
  /** Mount the backup volume at /backups: true for the database's own, or another's claim name (read-only). */
  readonly backupVolume?: boolean | string;
  readonly extraLabels?: Record<string, string>;
  /** Retries of a failed pod. @default 4 */
  readonly backoffLimit?: number;
}

/** The pod template of a database Job (also the CronJob's job template). */
export function jobPodTemplate(db: Database, o: JobSpecOptions): Record<string, unknown> {
  const volumes: Record<string, unknown>[] = [{ name: 'tmp', emptyDir: {} }];
  const mounts: Record<string, unknown>[] = [{ name: 'tmp', mountPath: '/tmp' }];
  if (o.backupVolume) {
    const other = typeof o.backupVolume === 'string' && o.backupVolume !== names.backupPvc(db.metadata.name);
    const claimName = typeof o.backupVolume === 'string' ? o.backupVolume : names.backupPvc(db.metadata.name);
    volumes.push({ name: 'backups', persistentVolumeClaim: other ? { claimName, readOnly: true } : { claimName } });
    mounts.push(
      other ? { name: 'backups', mountPath: '/backups', readOnly: true } : { name: 'backups', mountPath: '/backups' },
    );
  }
  return {
    metadata: { labels: labels(db, o.component, o.extraLabels) },
    spec: {
      restartPolicy: 'Never',
      securityContext: podSecurityContext(),
      containers: [
        {
          name: o.component,
          image: o.image,
          command: ['/bin/sh', '-c', o.script],
          env: [...clientEnv(db), ...(o.env ?? [])],
          securityContext: containerSecurityContext(),
          resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
          volumeMounts: mounts,
        },
      ],
      volumes,
    },
  };
}

/** A one-shot Job of a database, controlled by it. */
export function jobFor(db: Database, o: JobSpecOptions): Desired {
  const template = jobPodTemplate(db, o);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: o.name,
      namespace: db.metadata.namespace,
      labels: labels(db, o.component, o.extraLabels),
      ownerReferences: [controllerReference(db)],
    },
    spec: { backoffLimit: o.backoffLimit ?? 4, template },
  };
}

/** Outcome of a Job from its status (what the job controller wrote). */
export type JobState = 'Missing' | 'Running' | 'Succeeded' | 'Failed';

/** Reads a Job's state from its conditions (`Complete`/`Failed`), falling back to `succeeded`. */
export function jobState(job: Job | undefined): JobState {
  if (!job) return 'Missing';
  const status = job.status ?? {};
  const cond = (t: string) => (status.conditions ?? []).some((c) => c.type === t && c.status === 'True');
  if (cond('Complete') || (status.succeeded ?? 0) > 0) return 'Succeeded';
  if (cond('Failed')) return 'Failed';
  return 'Running';
}

/** When a finished Job finished (completionTime, else the finishing condition's time). */
export function jobFinishedAt(job: Job): string | undefined {
  const status = job.status ?? {};
  if (status.completionTime) return status.completionTime;
  return (status.conditions ?? []).find((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True')
    ?.lastTransitionTime;
}

/** A DNS-label-safe Job name: truncated with a stable hash suffix when too long. */
export function jobName(...parts: string[]): string {
  const raw = parts
    .join('-')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-');
  if (raw.length <= 63) return raw;
  let h = 0;
  for (const ch of raw) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const suffix = h.toString(36).slice(0, 6);
  return `${raw.slice(0, 56).replace(/-+$/, '')}-${suffix}`;
}
