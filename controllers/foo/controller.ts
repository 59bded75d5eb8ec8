/**
 * Wires the Foo reconciler into a manager: `for(Foo)`, `owns(Deployment)` — exactly what
 * `FOO_CONTRACT` grants (a manager built with the contract refuses anything else).
 */
import { Controller, ControllerBuilder, DEFAULT_CONCURRENCY, Manager } from '../../runtime';
import { FooReconciler } from './reconciler';
import { DEPLOYMENT, FOO } from './types';

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
    deployments: manager.getStore(DEPLOYMENT),
    recorder: manager.eventRecorder('samplecontroller.k8s.io/foo-controller'),
    fieldManager: `${name}-controller`,
  });
  return new ControllerBuilder(manager, { name })
    .for(FOO)
    .owns(DEPLOYMENT)
    .withConcurrency(options.concurrency ?? DEFAULT_CONCURRENCY)
    .withOptions({ backoffBaseMs: options.backoffBaseMs })
    .complete(reconciler);
}
