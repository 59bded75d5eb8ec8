/**
 * Command lines of etcd, kube-apiserver and kube-controller-manager. The apiserver is configured like a real
 * cluster's rather than like controller-runtime's envtest defaults: RBAC authorization, ServiceAccount tokens
 * signed by a key of this control plane, the default admission chain (NamespaceLifecycle, ServiceAccount,
 * PodSecurity, ...) left on, and a serving certificate clients verify.
 */
import { join } from 'node:path';

/** Where one control plane keeps its files and which loopback ports it listens on. */
export interface ControlPlaneLayout {
  /** Folder of certificates, keys, the token file and etcd's data (tmpfs when available). */
  readonly dir: string;
  readonly etcdPort: number;
  readonly etcdPeerPort: number;
  readonly apiServerPort: number;
}

export const files = {
  etcdData: (l: ControlPlaneLayout) => join(l.dir, 'etcd'),
  certDir: (l: ControlPlaneLayout) => join(l.dir, 'certs'),
  /** kube-apiserver writes its generated CA and serving certificate here (certificate first, then the CA). */
  servingCert: (l: ControlPlaneLayout) => join(l.dir, 'certs', 'apiserver.crt'),
  /** Its key: kube-apiserver makes both when they are missing and uses them when they are there. */
  servingKey: (l: ControlPlaneLayout) => join(l.dir, 'certs', 'apiserver.key'),
  serviceAccountKey: (l: ControlPlaneLayout) => join(l.dir, 'sa.key'),
  serviceAccountPub: (l: ControlPlaneLayout) => join(l.dir, 'sa.pub'),
  tokens: (l: ControlPlaneLayout) => join(l.dir, 'tokens.csv'),
  controllerManagerKubeconfig: (l: ControlPlaneLayout) => join(l.dir, 'kube-controller-manager.kubeconfig'),
};

/** etcd as controller-runtime starts it; `--unsafe-no-fsync` only where etcd has it (3.5, late 3.4). */
export function etcdArgs(l: ControlPlaneLayout, noFsync: boolean): string[] {
  const client = `http://127.0.0.1:${l.etcdPort}`;
  const peer = `http://127.0.0.1:${l.etcdPeerPort}`;
  return [
    `--data-dir=${files.etcdData(l)}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    ...(noFsync ? ['--unsafe-no-fsync=true'] : []),
  ];
}

export function apiServerArgs(l: ControlPlaneLayout, extra: readonly string[] = []): string[] {
  return [
    `--etcd-servers=http://127.0.0.1:${l.etcdPort}`,
    `--cert-dir=${files.certDir(l)}`,
    `--secure-port=${l.apiServerPort}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    '--service-cluster-ip-range=10.0.0.0/24',
    '--allow-privileged=true',
    '--authorization-mode=RBAC',
    `--service-account-issuer=https://127.0.0.1:${l.apiServerPort}`,
    `--service-account-key-file=${files.serviceAccountPub(l)}`,
    `--service-account-signing-key-file=${files.serviceAccountKey(l)}`,
    `--token-auth-file=${files.tokens(l)}`,
    // the default chain (NamespaceLifecycle, ServiceAccount, PodSecurity, ResourceQuota, ...) stays as in a cluster
    '--enable-admission-plugins=NamespaceLifecycle,ServiceAccount,PodSecurity',
    ...extra,
  ];
}

/**
 * The kube-controller-manager controllers without which a control plane answers differently from every cluster
 * where it matters to an operator's tests, run unless `controllerManager: false`:
 * - `clusterrole-aggregation-controller` fills the built-in `admin`, `edit` and `view` ClusterRoles (empty without
 *   it: binding them then needs no permission, and a test passes that every cluster refuses with 403 "attempting to
 *   grant RBAC permissions not currently held");
 * - `garbage-collector-controller` deletes dependents (owner references, background and foreground deletion) and
 *   removes the `foregroundDeletion` finalizer;
 * - `namespace-controller` empties and removes a deleted namespace (without it a namespace stays Terminating);
 * - `resourcequota-controller` computes ResourceQuota usage (without it, the apiserver's ResourceQuota admission
 *   refuses every pod of a namespace with a quota: "status unknown for quota").
 */
export const CLUSTER_CONTROLLERS: readonly string[] = [
  'clusterrole-aggregation-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'resourcequota-controller',
];

/** `controllerManager: true`: {@link CLUSTER_CONTROLLERS}, the workload controllers and the ServiceAccount ones. */
export const DEFAULT_CONTROLLERS: readonly string[] = [
  ...CLUSTER_CONTROLLERS,
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'job-controller',
  'cronjob-controller',
  'disruption-controller',
  'ttl-after-finished-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  // the StorageObjectInUseProtection admission plugin puts finalizers on PVCs and PVs that only these remove
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-protection-controller',
];

export function controllerManagerArgs(
  l: ControlPlaneLayout,
  controllers: readonly string[],
  extra: readonly string[] = [],
): string[] {
  return [
    `--kubeconfig=${files.controllerManagerKubeconfig(l)}`,
    `--controllers=${controllers.join(',')}`,
    '--leader-elect=false',
    // no serving endpoint: tests watch the objects the controllers write, not kcm's metrics
    '--secure-port=0',
    `--service-account-private-key-file=${files.serviceAccountKey(l)}`,
    `--root-ca-file=${files.servingCert(l)}`,
    // GC and quota discover every API every 30 s by default: CRDs a test installs must be seen at once
    '--concurrent-gc-syncs=5',
    ...extra,
  ];
}
