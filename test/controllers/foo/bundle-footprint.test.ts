/**
 * The Foo controller's bundle (what its image runs) carries only what a running controller needs: every
 * module of a bundle is parsed at start and its source text stays in memory, so a package the controller
 * never calls still costs resident memory (client-node's KubeConfig module, ~20 MiB; node-forge, used
 * only by webhook certificates). kubeconfig.ts and webhook/certificates.ts load those only when needed; the
 * binary start-up (runtime/cli.ts) refers to the certificate code, so Foo's bundle leaves node-forge external: its
 * lazy require runs only when a webhook certificate is made, and Foo declares no webhooks (asserted below).
 */
import * as path from 'path';
import * as esbuild from 'esbuild';
import { FOO_CONTRACT } from '../../../controllers/foo/contract';
import type { ControllerContract } from '../../../runtime';

const ROOT = path.join(__dirname, '..', '..', '..');

test('the Foo bundle holds no client-node and no node-forge, and stays small', async () => {
  // The same options as controllers/foo's `npm run bundle`.
  const result = await esbuild.build({
    entryPoints: [path.join(ROOT, 'controllers/foo/main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    minify: true,
    keepNames: true,
    external: ['node-forge'],
    write: false,
    metafile: true,
    outfile: 'main.js',
    logLevel: 'error',
  });
  // What the output holds (the metafile's inputs also list modules esbuild read and then left out).
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint)!;
  const included = Object.entries(output.inputs)
    .filter(([, i]) => i.bytesInOutput > 0)
    .map(([f]) => f);
  const packages = new Set(included.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter(Boolean));
  expect(packages.has('prom-client')).toBe(true);
  // node-forge is left external: safe only while Foo never serves webhooks (it would be required at start).
  const contract: ControllerContract = FOO_CONTRACT;
  expect(contract.webhooks ?? []).toStrictEqual([]);
  expect([...packages].filter((p) => ['@kubernetes/client-node', 'node-forge'].includes(p!))).toStrictEqual([]);
  const bytes = result.outputFiles.find((f) => f.path.endsWith('main.js'))!.contents.length;
  expect(bytes).toBeLessThan(300_000);
});
