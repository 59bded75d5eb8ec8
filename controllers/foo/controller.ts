/**
 * Wires the Foo reconciler into a manager: `for(Foo)`, `owns(Deployment)` — exactly what
 * `FOO_CONTRACT` grants (a manager built with the contract refuses anything else).
 */
import { FooReconciler } from './reconciler';
import { DEPLOYMENT, FOO } from './types';
import { CacheOptions, Controller, ControllerBuilder, DEFAULT_CONCURRENCY, keepFields, Manager } from '../../runtime';

/**
 * What the controller's cache keeps of each Deployment: what the reconciler reads (owner, the applied
 * hash, `status.observedGeneration` and `availableReplicas`) and every field `newDeployment` sets, which
 * `applyOwned` compares with. The rest (the apiserver's defaults of the pod template, strategy, conditions)
 * is never read: about a third of a cached Deployment's heap.
 */
export const DEPLOYMENT_CACHE: CacheOptions = {
  transform: keepFields({
    spec: {
      replicas: true,
      selector: true,
      template: { metadata: { labels: true }, spec: { containers: [{ name: true, image: true }] } },
    },
    status: { observedGeneration: true, availableReplicas: true },
  }),
};

/** Options of {@link setupFooController}. */
export interface FooControllerOptions {
  /** Parallel reconciles (upstream runs 2 blocking workers; ours wait on the apiserver without a thread each). @default DEFAULT_CONCURRENCY (8) */
  readonly concurrency?: number;
  /** Controller name (metrics, field manager). @default 'foo' */
  readonly name?: string;
  /** Failed-reconcile backoff base in ms. @default 5 */
  readonly backoffBaseMs?: number;
}

/** Registers the Foo controller with `manager`. */
export function setupFooController(manager: Manager, options: FooControllerOptions = {}): Controller {
  const name = options.name ?? 'foo';
  const reconciler = new FooReconciler({
    client: manager.readYourWritesClient,
    foos: manager.getStore(FOO),
    deployments: manager.getStore(DEPLOYMENT, DEPLOYMENT_CACHE),
    recorder: manager.eventRecorder('samplecontroller.k8s.io/foo-controller'),
    fieldManager: `${name}-controller`,
  });
  return new ControllerBuilder(manager, { name })
    .for(FOO)
    .owns(DEPLOYMENT, { cache: DEPLOYMENT_CACHE })
    .withConcurrency(options.concurrency ?? DEFAULT_CONCURRENCY)
    .withOptions({ backoffBaseMs: options.backoffBaseMs })
    .complete(reconciler);
}
