/**
 * Loads `@kubernetes/client-node` 1.4.x, which is published as an ES module only.
 *
 * Expected flow: runtime code imports only types from client-node and calls {@link loadClientNode}
 * for values (KubeConfig, from client-node's `dist/config.js` only). A plain `require` works under Node >= 20.19 (require(esm)), tsx and an
 * esbuild bundle; inside Jest's CommonJS sandbox it fails with a SyntaxError, so we fall back to
 * Node's own `require` via `process.getBuiltinModule('module')`.
 *
 * Caveats: client-node 2.x needs undici 8 / Node >= 22.19 and is not usable on Node 20.
 */
import type * as k8s from '@kubernetes/client-node';

/** The part of client-node the runtime uses: `KubeConfig` (auth, TLS, server), nothing generated. */
export type KubeConfigModule = Pick<typeof k8s, 'KubeConfig'>;

/**
 * The module is `dist/config.js`, not the package root: the root re-exports every generated API
 * (15 MB of a controller bundle and ~30 MiB of its heap as source text); config.js is 1.5 MB.
 */
const CONFIG_MODULE = '@kubernetes/client-node/dist/config.js';

let cached: KubeConfigModule | undefined;

/** Returns client-node's KubeConfig module (loaded once). */
export function loadClientNode(): KubeConfigModule {
  // A literal require, so that esbuild bundles exactly this module.
  return (cached ??= requireEsm<KubeConfigModule>(
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a literal require, so that bundlers see the module
    () => require('@kubernetes/client-node/dist/config.js'),
    CONFIG_MODULE,
  ));
}

/**
 * `load()` (a `require` of an ES-module-only package), falling back inside Jest's CommonJS sandbox,
 * which cannot parse ESM, to Node's own `require` of `id` (Node >= 20.19 loads ES modules with it).
 */
export function requireEsm<T>(load: () => unknown, id: string): T {
  try {
    return load() as T;
  } catch (err) {
    // Jest's sandbox throws a SyntaxError from another realm, so compare names, not classes.
    if ((err as Error).name !== 'SyntaxError' && (err as { code?: string }).code !== 'ERR_REQUIRE_ESM') throw err;
    const nodeModule = (
      process as unknown as { getBuiltinModule(id: string): typeof import('module') }
    ).getBuiltinModule('module');
    return nodeModule.createRequire(__filename)(id) as T;
  }
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
