/**
 * Wires the SampleDB reconciler into a manager: `for(SampleDB)`, `owns` the Services,
 * StatefulSet and CronJob (the credentials Secret is read by name, never watched: no list/watch
 * on Secrets), and `watches` Jobs and PVCs by the instance label (the CronJob's Jobs
 * are owned by the CronJob, data PVCs by nobody or the StatefulSet, the backup volume by nobody).
 */
import { PostgresImages } from './images';
import { InstanceClient } from './instances';
import { SampleDbMetrics } from './metrics';
import { SampleDbReconciler } from './reconciler';
import { CRONJOB, JOB, LABEL_INSTANCE, LABEL_NAME, POD, PVC, SAMPLEDB, SERVICE, STATEFULSET } from './types';
import { defaultSampleDb, validateSampleDb } from './webhooks';
import { Controller, ControllerBuilder, KubeObject, Manager, Request } from '../../runtime';

/** Options of {@link setupSampleDbController}. */
export interface SampleDbControllerOptions {
  /** Parallel reconciles (different databases). @default 2 */
  readonly concurrency?: number;
  /** Controller name (metrics, field manager). @default 'sampledb' */
  readonly name?: string;
  /** Failed-reconcile backoff base in ms. @default - the runtime's */
  readonly backoffBaseMs?: number;
  /** Which image runs each PostgreSQL version. @default - PostgresImages.fromEnv() (the operator's environment) */
  readonly images?: PostgresImages;
  /** How the reconciler talks to PostgreSQL. @default - a PgInstanceClient (SQL to each pod's IP) */
  readonly instances?: InstanceClient;
  /** How often a running database is looked at again. @default 10000 */
  readonly pollIntervalMs?: number;
}

/** Maps an object labelled with a database instance to that database. */
export function byInstanceLabel(obj: KubeObject): Request[] {
  const l = obj.metadata?.labels ?? {};
  const instance = l[LABEL_INSTANCE];
  if (l[LABEL_NAME] !== 'sampledb' || !instance || !obj.metadata?.namespace) return [];
  return [{ namespace: obj.metadata.namespace, name: instance }];
}

/** Registers the SampleDB controller with `manager`. */
export function setupSampleDbController(
  manager: Manager,
  options: SampleDbControllerOptions = {},
): { controller: Controller; reconciler: SampleDbReconciler; metrics: SampleDbMetrics } {
  const name = options.name ?? 'sampledb';
  const metrics = new SampleDbMetrics(manager.metrics.registry);
  const reconciler = new SampleDbReconciler({
    // Writes return once the informers show them, so no reconcile acts on a store from before its own write.
    client: manager.readYourWritesClient,
    stores: {
      sampledbs: manager.getStore(SAMPLEDB),
      services: manager.getStore(SERVICE),
      statefulsets: manager.getStore(STATEFULSET),
      jobs: manager.getStore(JOB),
      cronjobs: manager.getStore(CRONJOB),
      pvcs: manager.getStore(PVC),
      pods: manager.getStore(POD),
    },
    recorder: manager.eventRecorder('database.example.com/sampledb-controller'),
    fieldManager: `${name}-controller`,
    metrics,
    images: options.images ?? PostgresImages.fromEnv(),
    assertLeader: (what) => manager.assertLeader(what),
    instances: options.instances,
    pollIntervalMs: options.pollIntervalMs,
  });
  const controller = new ControllerBuilder(manager, { name })
    .for(SAMPLEDB)
    .owns(SERVICE)
    .owns(STATEFULSET)
    .owns(CRONJOB)
    .watches(JOB, byInstanceLabel)
    .watches(PVC, byInstanceLabel)
    // Database pods: readiness changes drive failover; the role label is the operator's.
    .watches(POD, byInstanceLabel)
    .withConcurrency(options.concurrency ?? 2)
    .withOptions({ backoffBaseMs: options.backoffBaseMs })
    .complete(reconciler);
  // The admission webhooks, served when the manager has a webhook server (the binary run by the chart has one).
  if (manager.webhookServer) {
    const deps = {
      sampledbs: manager.getStore(SAMPLEDB),
      jobs: manager.getStore(JOB),
      pvcs: manager.getStore(PVC),
      client: manager.client,
    };
    manager.validatingWebhook(SAMPLEDB, validateSampleDb(deps));
    manager.defaultingWebhook(SAMPLEDB, defaultSampleDb(deps));
  }
  return { controller, reconciler, metrics };
}
