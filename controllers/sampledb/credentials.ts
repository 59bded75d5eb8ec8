/**
 * The database credentials Secret `<db>-credentials` (keys `username`, `password`, `database`).
 *
 * The password is generated once, when the Secret is created, and never leaves the Secret: it is
 * not logged, not put in status or events, and not hashed into annotations (the Secret is created,
 * never server-side applied). A Secret with a missing key gets only that key added.
 */
import { randomBytes } from 'crypto';
import { controllerReference, KubeObject } from '../../runtime';
import { labels, names, SampleDB } from './types';

/** The keys the pods and Jobs read. */
export const CREDENTIAL_KEYS = ['username', 'password', 'database'] as const;

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
