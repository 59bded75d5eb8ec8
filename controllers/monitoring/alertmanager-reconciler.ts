/**
 * The Alertmanager reconciler: a StatefulSet and a Service per Alertmanager object. Its configuration is
 * the user's Secret (`spec.configSecret`, else `alertmanager-<name>`, key `alertmanager.yaml`), mounted as is:
 * the operator never reads a Secret, and the pod's config-reloader picks up an edit of it.
 *
 * Expected flow: gone or deleting → nothing (ownerReferences); a field outside the subset → `Reconciled=False`
 * naming it; else apply Service and StatefulSet (no request when they match) and report replicas and
 * `Available` / `Reconciled` in the status.
 */
import { alertmanagerService, alertmanagerStatefulSet, ChildOptions } from './children';
import { ALERTMANAGER_SUBSET, unsupportedFields } from './subset';
import { Alertmanager, ALERTMANAGER, inNamespace, InNamespace, names, SERVICE, Service, StatefulSet } from './types';
import { ReconciledCondition, workloadStatus } from './workload-status';
import { applyOwned, KubeClient, Reconciler, Request, Result, Store, updateStatus } from '../../runtime';

/** Dependencies of {@link AlertmanagerReconciler}. */
export interface AlertmanagerReconcilerDeps extends ChildOptions {
  readonly client: KubeClient;
  readonly alertmanagers: Store<Alertmanager>;
  readonly statefulSets: Store<StatefulSet>;
  readonly services: Store<Service>;
  /** @default 'monitoring-controller' */
  readonly fieldManager?: string;
}

/** See module docs. */
export class AlertmanagerReconciler implements Reconciler {
  private readonly fieldManager: string;

  constructor(private readonly deps: AlertmanagerReconcilerDeps) {
    this.fieldManager = deps.fieldManager ?? 'monitoring-controller';
  }

  async reconcile(request: Request): Promise<Result | void> {
    const stored = this.deps.alertmanagers.get(request);
    const am = stored ? inNamespace(stored) : undefined;
    if (!am || am.metadata.deletionTimestamp) return;
    const unsupported = unsupportedFields(am.spec, ALERTMANAGER_SUBSET);
    if (unsupported.length > 0) {
      await this.writeStatus(am, {
        status: 'False',
        reason: 'UnsupportedFields',
        message: `not reconciled: outside the supported subset (controllers/monitoring/README.md): ${unsupported.join(', ')}`,
      });
      return;
    }
    const key = (name: string) => ({ namespace: am.metadata.namespace, name });
    const fieldManager = this.fieldManager;
    await applyOwned(this.deps.client, alertmanagerService(am), {
      fieldManager,
      live: this.deps.services.get(key(names.alertmanagerService(am.metadata.name))),
      resource: SERVICE,
      createWhenAbsent: true,
    });
    await applyOwned(this.deps.client, alertmanagerStatefulSet(am, this.deps), {
      fieldManager,
      live: this.deps.statefulSets.get(key(names.alertmanagerStatefulSet(am.metadata.name))),
      createWhenAbsent: true,
    });
    await this.writeStatus(am, {
      status: 'True',
      reason: 'Reconciled',
      message: `configuration from Secret ${am.spec.configSecret ?? names.alertmanagerConfigSecret(am.metadata.name)}`,
    });
  }

  private async writeStatus(am: InNamespace<Alertmanager>, reconciled: ReconciledCondition): Promise<void> {
    const sts = this.deps.statefulSets.get({
      namespace: am.metadata.namespace,
      name: names.alertmanagerStatefulSet(am.metadata.name),
    });
    const status = workloadStatus(am.status, sts, am.spec.replicas ?? 1, reconciled, am.metadata.generation);
    await updateStatus(this.deps.client, am, status, { fieldManager: this.fieldManager, resource: ALERTMANAGER });
  }
}
