/**
 * The sample-controller business logic (kubernetes/sample-controller `syncHandler`), and nothing else.
 *
 * Expected flow for `namespace/name`:
 * 1. Foo gone from the cache → done (the Deployment is garbage-collected via its ownerReference).
 * 2. `spec.deploymentName` empty → {@link TerminalError} (upstream logs and does not retry).
 * 3. A Deployment of that name exists but is not controlled by this Foo → Warning event
 *    `ErrResourceExists` and an error (retried with backoff), like upstream.
 * 4. Create the desired Deployment (`nginx:latest`, labels `app=nginx`, `controller=<foo>`, controller
 *    ownerReference) when the cache has none, server-side apply it when the cached one differs
 *    (e.g. `spec.replicas` changed), nothing when it matches.
 * 5. Copy `deployment.status.availableReplicas` (absent = 0) into `foo.status.availableReplicas` through
 *    `/status`, 0 included like upstream, with no write when the Foo already says the same.
 *
 * Differences from upstream (on purpose):
 * - The status is copied once the Deployment's controller has reported on it (`status.observedGeneration`
 *   set); a Deployment just created has no status yet, and its first status report re-triggers this
 *   reconcile (we own it). Upstream writes `availableReplicas: 0` right after the create and then the
 *   real value: one status write per Foo fewer where the first report already has replicas available.
 * - The `Synced` event is recorded when the reconcile created or updated the Deployment (at most one per
 *   Foo while it converges), not on every sync; no status rewrite on resync: steady state makes zero writes.
 */
import { Deployment, DEPLOYMENT, Foo, FOO } from './types';
import {
  applyOwned,
  controllerReference,
  EventInput,
  getControllerOf,
  KubeClient,
  KubeObject,
  objectKey,
  ReconcileContext,
  Reconciler,
  Request,
  Result,
  Store,
  TerminalError,
  updateStatus,
} from '../../runtime';

/** Event reasons and messages of upstream. */
export const SUCCESS_SYNCED = 'Synced';
export const ERR_RESOURCE_EXISTS = 'ErrResourceExists';
export const MESSAGE_RESOURCE_SYNCED = 'Foo synced successfully';
/** Upstream: `Resource %q already exists and is not managed by Foo`. */
export function messageResourceExists(name: string): string {
  return `Resource ${JSON.stringify(name)} already exists and is not managed by Foo`;
}

/** Something that records events (the runtime's EventRecorder). */
export interface EventSink {
  event(regarding: KubeObject, input: EventInput): Promise<void>;
}

/** Dependencies of {@link FooReconciler}. */
export interface FooReconcilerDeps {
  /** Writes return once the informer shows them (the manager's `readYourWritesClient`); used when a reconcile gets no context. */
  readonly client: KubeClient;
  readonly foos: Store<Foo>;
  readonly deployments: Store<Deployment>;
  readonly recorder?: EventSink;
  /** @default 'foo-controller' */
  readonly fieldManager?: string;
}

/** The Deployment a Foo asks for (upstream `newDeployment`). */
export function newDeployment(foo: Foo): Deployment {
  const labels = { app: 'nginx', controller: foo.metadata?.name ?? '' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: foo.spec?.deploymentName,
      namespace: foo.metadata?.namespace,
      ownerReferences: [controllerReference(foo)],
    },
    spec: {
      ...(foo.spec?.replicas !== undefined ? { replicas: foo.spec.replicas } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
      },
    },
  };
}

/** See module docs. */
export class FooReconciler implements Reconciler {
  private readonly fieldManager: string;

  constructor(private readonly deps: FooReconcilerDeps) {
    this.fieldManager = deps.fieldManager ?? 'foo-controller';
  }

  async reconcile(request: Request, context?: ReconcileContext): Promise<Result | void> {
    // The controller's per-reconcile client: our writes do not block this worker until the cache shows
    // them; the controller holds this Foo back until it does (read-your-writes between reconciles).
    const client = context?.client ?? this.deps.client;
    const foo = this.deps.foos.get(request);
    if (!foo || foo.metadata.deletionTimestamp) return;
    const name = foo.spec?.deploymentName;
    if (!name) throw new TerminalError(`${objectKey(request)}: deployment name must be specified`);

    const deploymentRef = { namespace: foo.metadata.namespace, name };
    const deployment = this.deps.deployments.get(deploymentRef);
    if (deployment && getControllerOf(deployment)?.uid !== foo.metadata.uid) {
      const message = messageResourceExists(name);
      await this.deps.recorder?.event(foo, {
        type: 'Warning',
        reason: ERR_RESOURCE_EXISTS,
        action: 'Reconcile',
        note: message,
      });
      throw new Error(`${objectKey(request)}: ${message}`);
    }

    const applied = await applyOwned(client, newDeployment(foo), {
      fieldManager: this.fieldManager,
      live: deployment,
      resource: DEPLOYMENT,
      createWhenAbsent: true,
    });
    // After a write, the server's answer (the store may not show it yet): the same object the watch brings.
    const current = applied.changed ? applied.object : deployment;

    if (current?.status?.observedGeneration !== undefined) {
      const available = current.status.availableReplicas ?? 0;
      if (foo.status?.availableReplicas !== available) {
        await updateStatus(
          client,
          foo,
          { ...(foo.status ?? {}), availableReplicas: available },
          { fieldManager: this.fieldManager, resource: FOO },
        );
      }
    }

    // Not awaited, as client-go's recorder: the event is a side note, the next Foo need not wait for it.
    if (applied.changed) {
      void this.deps.recorder?.event(foo, {
        type: 'Normal',
        reason: SUCCESS_SYNCED,
        action: 'Reconcile',
        note: MESSAGE_RESOURCE_SYNCED,
      });
    }
  }
}
