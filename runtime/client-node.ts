/**
 * Loads `@kubernetes/client-node` 1.4.x, which is published as an ES module only.
 *
 * Expected flow: runtime code imports only types from client-node and calls {@link loadClientNode}
 * for values (KubeConfig). A plain `require` works under Node >= 20.19 (require(esm)), tsx and an
 * esbuild bundle; inside Jest's CommonJS sandbox it fails with a SyntaxError, so we fall back to
 * Node's own `require` via `process.getBuiltinModule('module')`.
 *
 * Caveats: client-node 2.x needs undici 8 / Node >= 22.19 and is not usable on Node 20.
 */
import type * as k8s from '@kubernetes/client-node';

/** The client-node module namespace. */
export type ClientNode = typeof k8s;

let cached: ClientNode | undefined;

/** Returns the client-node module (loaded once). */
export function loadClientNode(): ClientNode {
  if (cached) return cached;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    cached = require('@kubernetes/client-node') as ClientNode;
  } catch (err) {
    // Jest's sandbox throws a SyntaxError from another realm, so compare names, not classes.
    if ((err as Error).name !== 'SyntaxError' && (err as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw err;
    const nodeModule = (process as unknown as { getBuiltinModule(id: string): typeof import('module') }).getBuiltinModule('module');
    cached = nodeModule.createRequire(__filename)('@kubernetes/client-node') as ClientNode;
  }
  return cached;
}

/**
 * Loads a KubeConfig the way kubectl does: `KUBECONFIG` / `~/.kube/config`, else the in-cluster
 * service account (client-node's `loadFromDefault`).
 */
export function loadDefaultKubeConfig(): k8s.KubeConfig {
  const kc = new (loadClientNode().KubeConfig)();
  kc.loadFromDefault();
  return kc;
}
