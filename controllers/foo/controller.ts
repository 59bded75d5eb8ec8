/**
 * Wires the Foo reconciler into a manager: `for(Foo)`, `owns(Deployment)`.
 */
import { Controller, ControllerBuilder, Manager } from '../../runtime';
import { FooReconciler } from './reconciler';
import { DEPLOYMENT, FOO } from './types';

/** Options of {@link setupFooController}. */
export interface FooControllerOptions {
  /** Parallel reconciles. @default 2 (upstream runs 2 workers) */
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
    client: manager.client,
    foos: manager.getInformer(FOO).cache,
    deployments: manager.getInformer(DEPLOYMENT).cache,
    recorder: manager.eventRecorder('samplecontroller.k8s.io/foo-controller'),
    fieldManager: `${name}-controller`,
  });
  return new ControllerBuilder(manager, { name })
    .for(FOO)
    .owns(DEPLOYMENT)
    .withConcurrency(options.concurrency ?? 2)
    .withOptions({ backoffBaseMs: options.backoffBaseMs })
    .complete(reconciler);
}
