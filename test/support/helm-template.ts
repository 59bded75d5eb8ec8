/**
 * The renderer of the Helm layout's templates (cli/helm/render-template.ts, what `cdk8s-operator helm-template` uses),
 * and Helm's install order (pkg/releaseutil/kind_sorter.go, InstallOrder): the order `helm install` creates kinds in.
 */
export { renderObjects, renderTemplate } from '../../cli/helm/render-template';

const HELM_INSTALL_ORDER = [
  'PriorityClass',
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

/** Objects sorted as `helm install` creates them: by kind in InstallOrder, unknown kinds (custom resources) last; stable. */
export function helmInstallOrder<T extends { kind: string }>(objects: readonly T[]): T[] {
  const rank = (k: string) => {
    const i = HELM_INSTALL_ORDER.indexOf(k);
    return i < 0 ? HELM_INSTALL_ORDER.length : i;
  };
  return objects
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o.kind) - rank(b.o.kind) || a.i - b.i)
    .map(({ o }) => o);
}
