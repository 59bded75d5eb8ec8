/** Kubeconfigs for one identity (a bearer token) of a control plane: as a client-node KubeConfig and as a file. */
import { rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadClientNode } from '../client-node';

export interface ClusterAccess {
  readonly server: string;
  /** PEM of the CA the apiserver's certificate chains to. */
  readonly ca: string;
  readonly token: string;
  /** The user entry's name (e.g. `system:serviceaccount:ns:name`). */
  readonly user: string;
  /** Default namespace of the context. @default 'default' */
  readonly namespace?: string;
}

export function kubeconfigDocument(a: ClusterAccess): object {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'envtest',
        cluster: { server: a.server, 'certificate-authority-data': Buffer.from(a.ca).toString('base64') },
      },
    ],
    users: [{ name: a.user, user: { token: a.token } }],
    contexts: [{ name: 'envtest', context: { cluster: 'envtest', user: a.user, namespace: a.namespace ?? 'default' } }],
    'current-context': 'envtest',
  };
}

export function writeKubeconfig(path: string, a: ClusterAccess): void {
  writeFileSync(path, JSON.stringify(kubeconfigDocument(a), null, 2), { mode: 0o600 });
}

export function kubeConfigFor(a: ClusterAccess): KubeConfig {
  const kc = new (loadClientNode().KubeConfig)();
  kc.loadFromString(JSON.stringify(kubeconfigDocument(a)));
  return kc;
}

/**
 * Removes what kubectl has cached of a server's discovery (`$KUBECACHEDIR`, else `~/.kube/cache`; then
 * `discovery/<host>_<port>`), so that kubectl meets the server as it is now.
 *
 * kubectl keeps a server's API groups and kinds on disk under its host and port and trusts them for hours (kubectl
 * 1.32: a cache dated 5 hours back was used, 7 hours back was not; bench/latest/kubectl-discovery-cache-probe.txt,
 * `npx tsx tools/probe/kubectl-discovery-cache.ts`). A control plane that starts on a port an earlier one had, or a
 * shared test plane reset after a suite, would be mapped with the earlier custom resource kinds: an apply of a CRD
 * and its custom resources together then fails on a missing namespace or a kind not served yet, or passes, where on
 * a fresh cluster it fails with "no matches for kind ... ensure CRDs are installed first" (a CI run met the first).
 */
export function forgetKubectlDiscovery(server: string, env: NodeJS.ProcessEnv = process.env): void {
  const cacheDir = env.KUBECACHEDIR || join(env.HOME || homedir(), '.kube', 'cache');
  // as kubectl names the folder (cli-runtime's computeDiscoverCacheDir): scheme dropped, other characters to '_'
  const host = server.replace(/^https?:\/\//, '').replace(/[^\w/.()]/g, '_');
  rmSync(join(cacheDir, 'discovery', host), { recursive: true, force: true });
}
