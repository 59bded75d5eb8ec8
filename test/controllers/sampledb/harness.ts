/** Starts the fake apiserver with the SampleDB CRD and a manager running the SampleDB controller. */
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { setupSampleDbController } from '../../../controllers/sampledb/controller';
import { SampleDbMetrics } from '../../../controllers/sampledb/metrics';
import { createLogger, Logger } from '../../../runtime/log';
import { Manager, ManagerOptions } from '../../../runtime/manager';
import { FakeApiServer, startFakeApiServer } from '../../fake-apiserver';
import { FAST_INFORMER } from '../../runtime/support';
import type { KubeConfig } from '@kubernetes/client-node';

export const NS = 'default';
export const API = 'database.example.com/v1';

/** The CRD manifest exactly as the app synthesizes it. */
export function sampleDbCrdManifest(): object {
  return sampleDbCrd(new Chart(new App(), 'crd')).toManifest();
}

export async function startFake(opts: Parameters<typeof startFakeApiServer>[0] = {}): Promise<FakeApiServer> {
  return startFakeApiServer({ crds: [sampleDbCrdManifest()], bookmarkIntervalMs: 200, ...opts });
}

/** Every log line the manager wrote (to check that no credential leaks). */
export interface Started {
  readonly manager: Manager;
  readonly metrics: SampleDbMetrics;
  readonly logs: string[];
}

/** A manager running the SampleDB controller with test timings, logging at debug into `logs`. */
export async function startSampleDbManager(server: { kubeConfig(): KubeConfig }, options: Partial<ManagerOptions> = {}): Promise<Started> {
  const logs: string[] = [];
  const logger: Logger = createLogger({ level: 'debug', sink: (line) => { logs.push(line); if (process.env.TEST_LOG) process.stderr.write(line + '\n'); } });
  const manager = new Manager({
    kubeConfig: server.kubeConfig(),
    logger,
    informer: FAST_INFORMER,
    clientOptions: { retryBaseMs: 20, retryMaxMs: 1000 },
    gracefulShutdownTimeoutMs: 2000,
    onFatalError: (err) => { throw err; },
    ...options,
  });
  const { metrics } = setupSampleDbController(manager, { concurrency: 2, backoffBaseMs: 50 });
  await manager.start();
  return { manager, metrics, logs };
}

export function sampleDb(name: string, spec: Record<string, unknown> = {}): any {
  return { apiVersion: API, kind: 'SampleDB', metadata: { name, namespace: NS }, spec: { version: '16.4', ...spec } };
}

/** Writes by the controller (the test's own fake.put calls are not logged). */
export function controllerWrites(fake: FakeApiServer, since = 0) {
  return fake.requests.slice(since).filter((r) => ['create', 'update', 'patch', 'delete', 'deletecollection'].includes(r.verb));
}

/** Marks a Job finished like the job controller would. */
export function finishJob(fake: FakeApiServer, name: string, outcome: 'Complete' | 'Failed' = 'Complete', at = '2026-01-01T02:00:00Z'): void {
  const job = fake.get('batch/v1', 'Job', NS, name);
  if (!job) throw new Error(`job ${name} does not exist`);
  const condition = { type: outcome, status: 'True', lastTransitionTime: at, reason: outcome === 'Complete' ? 'Completed' : 'BackoffLimitExceeded', message: '' };
  fake.put({
    ...job,
    status: outcome === 'Complete'
      ? { succeeded: 1, startTime: at, completionTime: at, conditions: [condition] }
      : { failed: 5, startTime: at, conditions: [condition] },
  });
}

/** Sets the StatefulSet status like the statefulset controller would once pods are ready. */
export function setStatefulSetReady(fake: FakeApiServer, name: string, ready?: number): void {
  const sts = fake.get('apps/v1', 'StatefulSet', NS, name);
  if (!sts) throw new Error(`statefulset ${name} does not exist`);
  const replicas = sts.spec.replicas;
  const n = ready ?? replicas;
  fake.put({
    ...sts,
    status: { observedGeneration: sts.metadata.generation, replicas, readyReplicas: n, availableReplicas: n, currentReplicas: replicas, updatedReplicas: replicas, currentRevision: `${name}-r${sts.metadata.generation}`, updateRevision: `${name}-r${sts.metadata.generation}` },
  });
}

export function getDb(fake: FakeApiServer, name: string): any {
  return fake.get(API, 'SampleDB', NS, name);
}

export function condition(db: any, type: string): any {
  return (db?.status?.conditions ?? []).find((c: any) => c.type === type);
}
