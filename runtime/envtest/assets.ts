/**
 * Finds the control-plane binaries the way controller-runtime's envtest does: the folder named by
 * `KUBEBUILDER_ASSETS` (what `setup-envtest use -p path` prints) holds kube-apiserver and, optionally,
 * etcd and kube-controller-manager; etcd may also come from PATH (e.g. Debian's etcd-server package).
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface ControlPlaneBinaries {
  readonly kubeApiServer: string;
  readonly etcd: string;
  /** Present when the folder has one; needed only for garbage collection and the workload controllers. */
  readonly kubeControllerManager?: string;
}

/** Either the binaries or why they cannot be used. */
export type BinaryLookup = { readonly binaries: ControlPlaneBinaries } | { readonly missing: string };

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Looks the binaries up in `env.KUBEBUILDER_ASSETS` (etcd there or on `env.PATH`). */
export function findControlPlaneBinaries(env: NodeJS.ProcessEnv = process.env): BinaryLookup {
  const dir = env.KUBEBUILDER_ASSETS;
  if (!dir) {
    return { missing: 'KUBEBUILDER_ASSETS is not set (the folder with kube-apiserver, as setup-envtest prints it)' };
  }
  const kubeApiServer = join(dir, 'kube-apiserver');
  if (!isExecutable(kubeApiServer)) return { missing: `kube-apiserver not found in KUBEBUILDER_ASSETS (${dir})` };
  const etcd = [dir, ...(env.PATH ?? '').split(delimiter).filter(Boolean)]
    .map((p) => join(p, 'etcd'))
    .find(isExecutable);
  if (!etcd) return { missing: `etcd not found in KUBEBUILDER_ASSETS (${dir}) or on PATH` };
  const kcm = join(dir, 'kube-controller-manager');
  return { binaries: { kubeApiServer, etcd, ...(isExecutable(kcm) ? { kubeControllerManager: kcm } : {}) } };
}
