/**
 * Typed references to the built-in kinds: `resourceRef`s whose object type is the Kubernetes API's own
 * (`@kubernetes/client-node`'s models, generated from the apiserver's OpenAPI), so a reconciler's
 * desired Deployment is type-checked field by field and a misspelt field is a compile error instead
 * of a field the apiserver silently drops.
 *
 * ```ts
 * await applyOwned(client, { apiVersion: 'apps/v1', kind: 'Deployment', metadata, spec: { replicas: 2, … } },
 *   { resource: DEPLOYMENT, fieldManager, live });   // spec: V1DeploymentSpec; `replica: 2` does not compile
 * const deployments = manager.getStore(DEPLOYMENT); // Store<Deployment>: status.availableReplicas is a number
 * ```
 *
 * The object types are the wire form (JSON) of the models: date-times are strings (as the runtime's
 * caches and responses hold them), not the `Date` objects client-node's own deserializer makes.
 * Plurals come from the built-in kinds table, so no discovery request is made for them.
 */
import type * as k8s from '@kubernetes/client-node';
import { KubeObject, ObjectMeta } from './resource';
import { resourceRef, TypedResourceRef } from './store';

/** A model as JSON: `Date` fields are RFC 3339 strings; no class statics. */
export type Wire<T> = T extends Date ? string
  : T extends readonly (infer U)[] ? Wire<U>[]
    : T extends object ? { [K in keyof T]: Wire<T[K]> }
      : T;

/** A built-in object typed from its client-node model, with the runtime's metadata. */
export type BuiltinObject<M> = Omit<Wire<M>, 'metadata' | 'apiVersion' | 'kind'> & KubeObject & { metadata?: ObjectMeta };

/** A ConfigMap as the apiserver sends it (client-node's `V1ConfigMap`, wire form). */
export type ConfigMap = BuiltinObject<k8s.V1ConfigMap>;
/** A Secret as the apiserver sends it (client-node's `V1Secret`, wire form). */
export type Secret = BuiltinObject<k8s.V1Secret>;
/** A Service as the apiserver sends it (client-node's `V1Service`, wire form). */
export type Service = BuiltinObject<k8s.V1Service>;
/** A ServiceAccount as the apiserver sends it (client-node's `V1ServiceAccount`, wire form). */
export type ServiceAccount = BuiltinObject<k8s.V1ServiceAccount>;
/** A Pod as the apiserver sends it (client-node's `V1Pod`, wire form). */
export type Pod = BuiltinObject<k8s.V1Pod>;
/** A PersistentVolumeClaim as the apiserver sends it (client-node's `V1PersistentVolumeClaim`, wire form). */
export type PersistentVolumeClaim = BuiltinObject<k8s.V1PersistentVolumeClaim>;
/** A Deployment as the apiserver sends it (client-node's `V1Deployment`, wire form). */
export type Deployment = BuiltinObject<k8s.V1Deployment>;
/** A StatefulSet as the apiserver sends it (client-node's `V1StatefulSet`, wire form). */
export type StatefulSet = BuiltinObject<k8s.V1StatefulSet>;
/** A DaemonSet as the apiserver sends it (client-node's `V1DaemonSet`, wire form). */
export type DaemonSet = BuiltinObject<k8s.V1DaemonSet>;
/** A Job as the apiserver sends it (client-node's `V1Job`, wire form). */
export type Job = BuiltinObject<k8s.V1Job>;
/** A CronJob as the apiserver sends it (client-node's `V1CronJob`, wire form). */
export type CronJob = BuiltinObject<k8s.V1CronJob>;
/** A Ingress as the apiserver sends it (client-node's `V1Ingress`, wire form). */
export type Ingress = BuiltinObject<k8s.V1Ingress>;
/** A NetworkPolicy as the apiserver sends it (client-node's `V1NetworkPolicy`, wire form). */
export type NetworkPolicy = BuiltinObject<k8s.V1NetworkPolicy>;
/** A PodDisruptionBudget as the apiserver sends it (client-node's `V1PodDisruptionBudget`, wire form). */
export type PodDisruptionBudget = BuiltinObject<k8s.V1PodDisruptionBudget>;
/** A Role as the apiserver sends it (client-node's `V1Role`, wire form). */
export type Role = BuiltinObject<k8s.V1Role>;
/** A RoleBinding as the apiserver sends it (client-node's `V1RoleBinding`, wire form). */
export type RoleBinding = BuiltinObject<k8s.V1RoleBinding>;
/** A Lease as the apiserver sends it (client-node's `V1Lease`, wire form). */
export type Lease = BuiltinObject<k8s.V1Lease>;

/** The `ConfigMap` kind, typed: `applyOwned`/`getStore` with it check and return `ConfigMap` objects. */
export const CONFIGMAP: TypedResourceRef<ConfigMap> = resourceRef<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' });
/** The `Secret` kind, typed: `applyOwned`/`getStore` with it check and return `Secret` objects. */
export const SECRET: TypedResourceRef<Secret> = resourceRef<Secret>({ apiVersion: 'v1', kind: 'Secret', plural: 'secrets' });
/** The `Service` kind, typed: `applyOwned`/`getStore` with it check and return `Service` objects. */
export const SERVICE: TypedResourceRef<Service> = resourceRef<Service>({ apiVersion: 'v1', kind: 'Service', plural: 'services' });
/** The `ServiceAccount` kind, typed: `applyOwned`/`getStore` with it check and return `ServiceAccount` objects. */
export const SERVICEACCOUNT: TypedResourceRef<ServiceAccount> = resourceRef<ServiceAccount>({ apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts' });
/** The `Pod` kind, typed: `applyOwned`/`getStore` with it check and return `Pod` objects. */
export const POD: TypedResourceRef<Pod> = resourceRef<Pod>({ apiVersion: 'v1', kind: 'Pod', plural: 'pods' });
/** The `PersistentVolumeClaim` kind, typed: `applyOwned`/`getStore` with it check and return `PersistentVolumeClaim` objects. */
export const PERSISTENTVOLUMECLAIM: TypedResourceRef<PersistentVolumeClaim> = resourceRef<PersistentVolumeClaim>({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims' });
/** The `Deployment` kind, typed: `applyOwned`/`getStore` with it check and return `Deployment` objects. */
export const DEPLOYMENT: TypedResourceRef<Deployment> = resourceRef<Deployment>({ apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' });
/** The `StatefulSet` kind, typed: `applyOwned`/`getStore` with it check and return `StatefulSet` objects. */
export const STATEFULSET: TypedResourceRef<StatefulSet> = resourceRef<StatefulSet>({ apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets' });
/** The `DaemonSet` kind, typed: `applyOwned`/`getStore` with it check and return `DaemonSet` objects. */
export const DAEMONSET: TypedResourceRef<DaemonSet> = resourceRef<DaemonSet>({ apiVersion: 'apps/v1', kind: 'DaemonSet', plural: 'daemonsets' });
/** The `Job` kind, typed: `applyOwned`/`getStore` with it check and return `Job` objects. */
export const JOB: TypedResourceRef<Job> = resourceRef<Job>({ apiVersion: 'batch/v1', kind: 'Job', plural: 'jobs' });
/** The `CronJob` kind, typed: `applyOwned`/`getStore` with it check and return `CronJob` objects. */
export const CRONJOB: TypedResourceRef<CronJob> = resourceRef<CronJob>({ apiVersion: 'batch/v1', kind: 'CronJob', plural: 'cronjobs' });
/** The `Ingress` kind, typed: `applyOwned`/`getStore` with it check and return `Ingress` objects. */
export const INGRESS: TypedResourceRef<Ingress> = resourceRef<Ingress>({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', plural: 'ingresses' });
/** The `NetworkPolicy` kind, typed: `applyOwned`/`getStore` with it check and return `NetworkPolicy` objects. */
export const NETWORKPOLICY: TypedResourceRef<NetworkPolicy> = resourceRef<NetworkPolicy>({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', plural: 'networkpolicies' });
/** The `PodDisruptionBudget` kind, typed: `applyOwned`/`getStore` with it check and return `PodDisruptionBudget` objects. */
export const PODDISRUPTIONBUDGET: TypedResourceRef<PodDisruptionBudget> = resourceRef<PodDisruptionBudget>({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets' });
/** The `Role` kind, typed: `applyOwned`/`getStore` with it check and return `Role` objects. */
export const ROLE: TypedResourceRef<Role> = resourceRef<Role>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', plural: 'roles' });
/** The `RoleBinding` kind, typed: `applyOwned`/`getStore` with it check and return `RoleBinding` objects. */
export const ROLEBINDING: TypedResourceRef<RoleBinding> = resourceRef<RoleBinding>({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', plural: 'rolebindings' });
/** The `Lease` kind, typed: `applyOwned`/`getStore` with it check and return `Lease` objects. */
export const LEASE: TypedResourceRef<Lease> = resourceRef<Lease>({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' });
