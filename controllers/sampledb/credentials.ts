/**
 * The database credentials Secret `<db>-credentials` (keys `username`, `password`, `database`, and
 * the replication user's `replicationUsername`, `replicationPassword`).
 *
 * The password is generated once, when the Secret is created, and never leaves the Secret: it is
 * not logged, not put in status or events, and not hashed into annotations (the Secret is created,
 * never server-side applied). A Secret with a missing key gets only that key added.
 */
import { randomBytes } from 'crypto';
import { Database, Desired, labels, names, Secret } from './types';
import { controllerReference, KubeObject } from '../../runtime';

/** The keys the pods and Jobs read. */
export const CREDENTIAL_KEYS = [
  'username',
  'password',
  'database',
  'replicationUsername',
  'replicationPassword',
] as const;

/** A 32-character random password (192 bits). */
export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

function b64(s: string): string {
  return Buffer.from(s, 'utf8').toString('base64');
}

/**
 * The string values of a Secret's `data` as read from the apiserver (by name, uncached: untyped);
 * anything that is not a string is left out.
 */
export function secretData(secret: KubeObject | undefined): Record<string, string> {
  const data = secret?.data;
  if (!data || typeof data !== 'object') return {};
  return Object.fromEntries(
    Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

/** Values of the keys that are missing from `existing` (all of them for a new Secret). */
export function missingCredentialData(
  existing: KubeObject | undefined,
  password: () => string = generatePassword,
): Record<string, string> {
  const data = secretData(existing);
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
  return out;
}

/** A new credentials Secret controlled by `db`. */
export function newCredentialsSecret(db: Database, password: () => string = generatePassword): Desired & Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: names.secret(db.metadata.name),
      namespace: db.metadata.namespace,
      labels: labels(db, 'credentials'),
      ownerReferences: [controllerReference(db)],
    },
    type: 'Opaque',
    data: missingCredentialData(undefined, password),
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
  const data = secretData(secret);
  const get = (k: string) => (data[k] ? Buffer.from(data[k], 'base64').toString('utf8') : undefined);
  const [username, password, replicationUsername, replicationPassword] = [
    'username',
    'password',
    'replicationUsername',
    'replicationPassword',
  ].map(get);
  if (!username || !password || !replicationUsername || !replicationPassword) return undefined;
  return { username, password, replicationUsername, replicationPassword };
}
