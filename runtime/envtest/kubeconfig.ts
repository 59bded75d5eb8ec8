/** Kubeconfigs for one identity (a bearer token) of a control plane: as a client-node KubeConfig and as a file. */
import { writeFileSync } from 'node:fs';
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
