// The Tenant operator's contract: imported by the chart (RBAC) and by the controller (wiring), from the package only.
import { defineContract, NETWORKPOLICY, POD, ROLEBINDING } from 'cdk8s-operator/runtime';

export const TENANT = { apiVersion: 'tenancy.example.com/v1', kind: 'Tenant', plural: 'tenants' };
// no typed built-in for these two in the runtime yet: plain references
export const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace', plural: 'namespaces' };
export const RESOURCEQUOTA = { apiVersion: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas' };

export const TENANT_CONTRACT = defineContract({
  watches: [TENANT],
  // owned by label (setLabelOwner): the garbage collector never deletes them, the finalizer does
  owns: [NAMESPACE, RESOURCEQUOTA, ROLEBINDING, NETWORKPOLICY],
  reads: [POD],
  // the owners' RoleBinding refers to the built-in admin ClusterRole: bind on it, by name
  binds: [{ kind: 'ClusterRole', name: 'admin' }],
  finalizers: true,
  status: true,
});
