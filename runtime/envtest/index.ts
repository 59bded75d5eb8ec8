/**
 * `cdk8s-operator/envtest`: a real kube-apiserver (+ etcd, optionally kube-controller-manager) for testing
 * controllers, from the binaries in KUBEBUILDER_ASSETS (controller-runtime's setup-envtest convention).
 */
export { ControlPlane } from './control-plane';
export type { ControlPlaneOptions, Identity } from './control-plane';
export { findControlPlaneBinaries } from './assets';
export type { BinaryLookup, ControlPlaneBinaries } from './assets';
export { CLUSTER_CONTROLLERS, DEFAULT_CONTROLLERS } from './flags';
export { readCrds } from './crds';
export { readManifests } from './manifest-files';
export type { Manifest } from './manifest-files';
export type { HttpReply, RequestOptions } from './http';
export type { ClusterAccess } from './kubeconfig';
export type { InstalledWebhooks, WebhookInstallOptions } from './webhooks';
