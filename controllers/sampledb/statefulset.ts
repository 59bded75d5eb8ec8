/**
 * The database StatefulSet `<db>`: `spec.replicas` pods of the pinned postgres image, one `data`
 * PVC each from the claim template, credentials from the Secret.
 *
 * The StatefulSet carries the version it runs ({@link ANNOTATION_VERSION}); the upgrade plan decides
 * which version that is (see upgrade.ts) — never the reconciler from `spec.version` directly.
 */
import { ENV_ISOLATION_FENCE_SECONDS, isolationFenceSeconds } from './fencing';
import { HEALTH_PATH, HEALTH_PORT, instanceCommand, postgresArgs } from './instance-script';
import { containerSecurityContext, podSecurityContext, POSTGRES_PORT, serverCredentialEnv } from './pods';
import { containerResources } from './tuning';
import {
  ANNOTATION_UPGRADE_RESTORE,
  ANNOTATION_VERSION,
  Database,
  Desired,
  FINALIZER,
  labels,
  names,
  selectorLabels,
  StatefulSet,
} from './types';
import { dataDirFor } from './versions';
import { controllerReference, KubeObject } from '../../runtime';

/** Options of {@link desiredStatefulSet}. */
export interface StatefulSetOptions {
  /** The version to run (from the upgrade plan). */
  readonly version: string;
  /** The image running `version` (images.ts). */
  readonly image: string;
  /** After a major upgrade: the pre-upgrade backup to load into the new major. @default - none */
  readonly upgradeRestoreFrom?: string;
  /**
   * Pods to run: `spec.replicas`, or more while the primary has an ordinal a scale-down would
   * remove (the primary is switched over first, then the StatefulSet shrinks).
   * @default spec.replicas
   */
  readonly replicas?: number;
}

/** Each probe asks the instance's health endpoint (instance-script.ts): healthy while PostgreSQL answers. */
const HEALTH_PROBE = { httpGet: { path: HEALTH_PATH, port: 'health' } };

/**
 * Seconds a probe may take. The kubelet's default (1 s) was shorter than forking a shell and pg_isready took on a
 * starved node (the exec probes before the health endpoint): the chaos suite, at a load average of 30 on 2 cores, saw
 * probes "timed out" and the liveness probe kill healthy PostgreSQL instances (then failovers of a healthy primary).
 * The endpoint's process can be as starved.
 */
export const PROBE_TIMEOUT_SECONDS = 5;

/** The desired StatefulSet. */
export function desiredStatefulSet(db: Database, o: StatefulSetOptions): Desired {
  const name = db.metadata.name;
  const annotations: Record<string, string> = { [ANNOTATION_VERSION]: o.version };
  if (o.upgradeRestoreFrom) annotations[ANNOTATION_UPGRADE_RESTORE] = o.upgradeRestoreFrom;
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: names.statefulSet(name),
      namespace: db.metadata.namespace,
      labels: labels(db, 'database'),
      annotations,
      // Keeps the StatefulSet (and its pods) until the final snapshot succeeded, even if the
      // garbage collector deletes dependents first (foreground deletion of the SampleDB).
      finalizers: [FINALIZER],
      ownerReferences: [controllerReference(db)],
    },
    spec: {
      replicas: o.replicas ?? db.spec.replicas ?? 1,
      serviceName: names.headlessService(name),
      // Standbys clone from whichever pod is primary: no pod waits for a lower ordinal.
      podManagementPolicy: 'Parallel',
      // The operator replaces the pods of a new template itself (replication.ts: standbys first, then a switchover,
      // then the old primary, as CloudNativePG and Zalando's operator do). RollingUpdate goes by ordinal and would
      // restart the primary in place whenever its ordinal comes, making writes wait for a failover.
      updateStrategy: { type: 'OnDelete' },
      selector: { matchLabels: selectorLabels(db) },
      // Volumes are deleted only by the finalizer, after the final snapshot (spec.volumeRetention):
      // deleting the StatefulSet by hand must never delete data.
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
      template: {
        metadata: { labels: labels(db, 'database') },
        spec: {
          securityContext: podSecurityContext(),
          containers: [
            {
              name: 'postgres',
              image: o.image,
              ports: [
                { name: 'postgresql', containerPort: POSTGRES_PORT, protocol: 'TCP' },
                { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' },
              ],
              command: instanceCommand(),
              args: postgresArgs(db),
              env: [
                ...serverCredentialEnv(db),
                { name: 'PGDATA', value: dataDirFor(o.version) },
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
                { name: 'PRIMARY_SERVICE', value: names.primaryService(name) },
                { name: 'STATEFULSET', value: names.statefulSet(name) },
                { name: 'HEADLESS_SERVICE', value: names.headlessService(name) },
                { name: ENV_ISOLATION_FENCE_SECONDS, value: String(isolationFenceSeconds(db)) },
              ],
              // Every 5 s (CloudNativePG and Patroni-based operators: 10 s)
              readinessProbe: {
                ...HEALTH_PROBE,
                periodSeconds: 5,
                failureThreshold: 2,
                timeoutSeconds: PROBE_TIMEOUT_SECONDS,
              },
              // A standby's first start clones the primary before PostgreSQL answers: up to 10 minutes.
              startupProbe: {
                ...HEALTH_PROBE,
                periodSeconds: 2,
                failureThreshold: 300,
                timeoutSeconds: PROBE_TIMEOUT_SECONDS,
              },
              // Restarts a PostgreSQL that stopped answering after about a minute (3 × 20 s)
              livenessProbe: {
                ...HEALTH_PROBE,
                periodSeconds: 20,
                failureThreshold: 3,
                timeoutSeconds: PROBE_TIMEOUT_SECONDS,
              },
              resources: containerResources(db),
              securityContext: containerSecurityContext(),
              volumeMounts: [
                { name: 'data', mountPath: '/var/lib/postgresql/data' },
                { name: 'run', mountPath: '/var/run/postgresql' },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            { name: 'run', emptyDir: {} },
            { name: 'tmp', emptyDir: {} },
          ],
        },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: {
            accessModes: ['ReadWriteOnce'],
            ...storageClassOf(db),
            resources: { requests: { storage: db.spec.storage ?? '1Gi' } },
          },
        },
      ],
    },
  };
}

/** The version a live StatefulSet runs. */
export function runningVersion(sts: KubeObject | undefined): string | undefined {
  return sts?.metadata?.annotations?.[ANNOTATION_VERSION];
}

/**
 * Replica counts the StatefulSet controller reports. Rolled out = every pod runs the update revision: with `OnDelete`
 * the controller never moves `currentRevision` up to `updateRevision` (kubernetes/kubernetes#106055), so
 * `updatedReplicas` says it.
 */
export function statefulSetCounts(sts: StatefulSet | undefined): { replicas: number; ready: number; settled: boolean } {
  const st = sts?.status ?? {};
  const observed = (st.observedGeneration ?? 0) >= (sts?.metadata?.generation ?? 0);
  const rolled =
    !st.updateRevision ||
    st.currentRevision === st.updateRevision ||
    (st.replicas !== undefined && (st.updatedReplicas ?? 0) >= st.replicas);
  return { replicas: st.replicas ?? 0, ready: st.readyReplicas ?? 0, settled: !!sts && observed && rolled };
}

/**
 * The revision every pod should run: `status.updateRevision` once the controller observed the current spec; undefined
 * before (the pods cannot be judged against a template the controller has not seen).
 */
export function updateRevisionOf(sts: StatefulSet | undefined): string | undefined {
  const observed = (sts?.status?.observedGeneration ?? 0) >= (sts?.metadata?.generation ?? 0);
  return observed ? sts?.status?.updateRevision : undefined;
}

/** `storageClassName` of the database's volumes when it names one (else the cluster's default class). */
export function storageClassOf(db: Database): { storageClassName?: string } {
  return db.spec.storageClassName ? { storageClassName: db.spec.storageClassName } : {};
}
