// The Tenant operator's contract: imported by the chart (RBAC) and by the controller (wiring), from the package only.
import type { Condition, KubeObject } from 'cdk8s-operator/runtime';
import { defineContract, NAMESPACE, NETWORKPOLICY, POD, RESOURCEQUOTA, resourceRef, ROLEBINDING } from 'cdk8s-operator/runtime';

/** A Tenant as the apiserver sends it (the CRD's schema in chart.ts). */
export interface Tenant extends KubeObject {
  spec: { owners: string[]; pods?: number };
  status?: { phase?: string; message?: string; conditions?: Condition[] };
}
export const TENANT = resourceRef<Tenant>({ apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', plural: 'tenants' });

export const TENANT_CONTRACT = defineContract({
  watches: [TENANT],
  // the runtime's typed built-ins; owned by label (setLabelOwner): the garbage collector never deletes them, the finalizer does
  owns: [NAMESPACE, RESOURCEQUOTA, ROLEBINDING, NETWORKPOLICY],
  reads: [POD],
  // the owners' RoleBinding refers to the built-in admin ClusterRole: bind on it, by name
  binds: [{ kind: 'ClusterRole', name: 'admin' }],
  finalizers: true,
  status: true,
  // a failed reconcile is a Warning event beside the Ready=False condition (recordReconcileError)
  events: true,
});
