/** The SampleDB controller on a real control plane: one namespace per test, a stand-in kubelet, a manager. */
import type { KubeConfig } from '@kubernetes/client-node';
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { SampleDbControllerOptions, setupSampleDbController } from '../../../controllers/sampledb/controller';
import { Credentials } from '../../../controllers/sampledb/credentials';
import { InstanceClient, PgState } from '../../../controllers/sampledb/instances';
import { SampleDbMetrics } from '../../../controllers/sampledb/metrics';
import { createLogger, Logger } from '../../../runtime/log';
import { Manager, ManagerOptions } from '../../../runtime/manager';
import { ControlPlane, TestNamespace } from '../../envtest';
import { testManager } from '../../runtime/support';

export const API = 'database.example.com/v2';

/** The CRD manifest exactly as the app synthesizes it. */
export function sampleDbCrdManifest(): object {
  return sampleDbCrd(new Chart(new App(), 'crd')).toManifest();
}

/** Every log line the manager wrote (to check that no credential leaks). */
export interface Started {
  readonly manager: Manager;
  readonly metrics: SampleDbMetrics;
  readonly logs: string[];
}

/** A manager running the SampleDB controller with test timings, logging at debug into `logs`. */
export async function startSampleDbManager(
  server: { kubeConfig(): KubeConfig },
  options: Partial<ManagerOptions> = {},
  controller: SampleDbControllerOptions = {},
): Promise<Started> {
  const logs: string[] = [];
  const logger: Logger = createLogger({
    level: 'debug',
    sink: (line) => {
      logs.push(line);
      if (process.env.TEST_LOG) process.stderr.write(line + '\n');
    },
  });
  const manager = testManager({
    kubeConfig: server.kubeConfig(),
    logger,
    clientOptions: { retryBaseMs: 20, retryMaxMs: 1000 },
    ...options,
  });
  const { metrics } = setupSampleDbController(manager, { concurrency: 2, backoffBaseMs: 50, ...controller });
  await manager.start();
  return { manager, metrics, logs };
}

/**
 * PostgreSQL stood in for by pod name (the pods run on a stand-in kubelet, each with its own IP): a test says what
 * each instance answers in `state`; configuring, parameters and sessions are not what these tests look at.
 */
export abstract class StandInInstances implements InstanceClient {
  constructor(protected readonly podOf: (ip: string) => Promise<string | undefined>) {}

  abstract state(ip: string, credentials: Credentials): Promise<PgState | undefined>;

  abstract promote(ip: string, credentials: Credentials): Promise<void>;

  async configurePrimary(): Promise<void> {
    /* nothing to configure */
  }

  async applyParameters(): Promise<{ changed: string[] }> {
    return { changed: [] };
  }

  async activity(): Promise<never> {
    throw new Error('no sessions in this stand-in');
  }

  async endSessions(): Promise<void> {
    /* no sessions to end */
  }
}

export function sampleDb(name: string, spec: Record<string, unknown> = {}, namespace = 'default'): any {
  return { apiVersion: API, kind: 'SampleDB', metadata: { name, namespace }, spec: { version: '16.4', ...spec } };
}

/** Writes (POST/PUT/PATCH/DELETE) the manager's client made, from its own `rest_client_requests_total`. */
export async function writeCount(manager: Manager): Promise<number> {
  const metric = await manager.metrics.restRequests.get();
  return metric.values
    .filter((v) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(String(v.labels.method)))
    .reduce((n, v) => n + v.value, 0);
}

/**
 * A test's namespace: pods of a Job succeed or fail only once the test says so (`finishJob`), StatefulSet
 * pods run once released (`runPods`).
 */
export class SampleDbNamespace extends TestNamespace {
  static async create(plane: ControlPlane): Promise<SampleDbNamespace> {
    return new SampleDbNamespace(plane, await plane.createNamespace('sampledb-'));
  }

  private readonly jobOutcomes = new Map<string, 'Succeeded' | 'Failed'>();
  private readonly runnable = new Set<string>();

  private constructor(plane: ControlPlane, ns: string) {
    super(plane, ns, (pod) => {
      const job = pod.metadata.labels?.['batch.kubernetes.io/job-name'];
      if (job) return this.jobOutcomes.get(job) ?? 'Pending';
      return this.runnable.has(pod.metadata.name) ? 'Running' : 'Pending';
    });
  }

  getDb(name: string): Promise<any> {
    return this.get(API, 'SampleDB', name);
  }

  /** Lets the StatefulSet's pods `name-0` .. `name-(count-1)` run and become Ready. */
  runPods(name: string, count: number): void {
    for (let i = 0; i < count; i++) this.runnable.add(`${name}-${i}`);
  }

  /**
   * Lets a Job's pod succeed, or fail. A failing Job gets `backoffLimit: 0` first so that one failed pod fails
   * it (the real job controller would otherwise retry with minutes of back-off).
   */
  async finishJob(name: string, outcome: 'Succeeded' | 'Failed' = 'Succeeded'): Promise<void> {
    if (outcome === 'Failed') {
      const r = await this.mergePatch('batch/v1', 'Job', name, { spec: { backoffLimit: 0 } });
      if (r.code !== 200) throw new Error(`job ${name}: ${r.code} ${r.body?.message}`);
    }
    this.jobOutcomes.set(name, outcome);
  }

  /** Forgets a Job's outcome (a recreated Job of the same name waits again). */
  holdJob(name: string): void {
    this.jobOutcomes.delete(name);
  }
}

export function condition(db: any, type: string): any {
  return (db?.status?.conditions ?? []).find((c: any) => c.type === type);
}
