/**
 * The database credentials Secret `<db>-credentials` (keys `username`, `password`, `database`, and
 * the replication user's `replicationUsername`, `replicationPassword`).
 *
 * The password is generated once, when the Secret is created, and never leaves the Secret: it is
 * not logged, not put in status or events, and not hashed into annotations (the Secret is created,
 * never server-side applied). A Secret with a missing key gets only that key added.
 */
import { randomBytes } from 'crypto';
import { controllerReference, KubeObject } from '../../runtime';
import { labels, names, SampleDB } from './types';

/** The keys the pods and Jobs read. */
export const CREDENTIAL_KEYS = ['username', 'password', 'database', 'replicationUsername', 'replicationPassword'] as const;

/** A 32-character random password (192 bits). */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

/** Values of the keys that are missing from `existing` (all of them for a new Secret). */
export function missingCredentialData(db: SampleDB, existing: KubeObject | undefined, password: () => string = generatePassword): Record<string, string> {
  const data = ((existing?.data ?? {}) as Record<string, string>);
  const wanted: Record<string, () => string> = {
    username: () => 'sampledb',
    password,
    database: () => 'sampledb',
    // Standbys stream as this user (REPLICATION LOGIN only, not a superuser).
    replicationUsername: () => 'replicator',
    replicationPassword: password,
  };
  const out: Record<string, string> = {};
  for (const key of CREDENTIAL_KEYS) if (!data[key]) out[key] = b64(wanted[key]());
  void db;
  return out;
}

/** A new credentials Secret controlled by `db`. */
export function newCredentialsSecret(db: SampleDB, password: () => string = generatePassword): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: names.secret(db.metadata!.name!),
      namespace: db.metadata!.namespace,
      labels: labels(db, 'credentials'),
      ownerReferences: [controllerReference(db)],
    },
    type: 'Opaque',
    data: missingCredentialData(db, undefined, password),
  };
}

/** Decoded credentials the operator itself uses (to ask instances for their role and WAL position). */
export interface Credentials {
  readonly username: string;
  readonly password: string;
  readonly replicationUsername: string;
  readonly replicationPassword: string;
}

/** The credentials in a Secret, or undefined while a key is missing. */
export function readCredentials(secret: KubeObject | undefined): Credentials | undefined {
  const data = (secret?.data ?? {}) as Record<string, string>;
  const get = (k: string) => (data[k] ? Buffer.from(data[k], 'base64').toString('utf8') : undefined);
  const [username, password, replicationUsername, replicationPassword] = ['username', 'password', 'replicationUsername', 'replicationPassword'].map(get);
  if (!username || !password || !replicationUsername || !replicationPassword) return undefined;
  return { username, password, replicationUsername, replicationPassword };
}
