/**
 * Loads @kubernetes/client-node (an ES module since 1.x) from CommonJS jest tests.
 *
 * Jest's module registry cannot parse the package's ESM `export` syntax unless the project's jest config
 * transforms it. Node 20.19+ can `require()` ES modules natively, so when the registry fails we fall back to
 * Node's own `require` (reached through `process.getBuiltinModule`, which jest does not intercept).
 * Once the jest config transforms the package, the first branch wins and everyone shares one copy.
 */
import { requireEsm } from '../../runtime/client-node';

export type ClientNode = typeof import('@kubernetes/client-node');

let cached: ClientNode | undefined;

export function loadClientNode(): ClientNode {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return cached ??= requireEsm<ClientNode>(() => require('@kubernetes/client-node'), '@kubernetes/client-node');
}
