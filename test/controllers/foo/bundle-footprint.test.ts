/**
 * The Foo controller's bundle (what its image runs) carries only what a running controller needs: every
 * module of a bundle is parsed at start and its source text stays in memory, so a package the controller
 * never calls still costs resident memory (client-node's KubeConfig module, ~20 MiB; node-forge, used
 * only by webhook certificates). kubeconfig.ts and webhook/certificates.ts load those only when needed; the
 * binary start-up (runtime/cli.ts) refers to the certificate code, so Foo's bundle leaves node-forge external: its
 * lazy require runs only when a webhook certificate is made. The unsharded Foo declares no webhooks; the sharded one
 * serves the ring's labelling webhook with self-managed certificates (`--sharding-label-webhook`), so node-forge is
 * bundled apart and shipped beside main.js, where its require finds it (found on the real node: the members could
 * not make their certificate, and never became Ready; test/node/suites/sharding.ts).
 */
import { readFileSync } from 'fs';
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
  // node-forge is left external: the unsharded Foo serves no webhooks, so it never requires it.
  const contract: ControllerContract = FOO_CONTRACT;
  expect(contract.webhooks ?? []).toStrictEqual([]);
  expect([...packages].filter((p) => ['@kubernetes/client-node', 'node-forge'].includes(p!))).toStrictEqual([]);
  const bytes = result.outputFiles.find((f) => f.path.endsWith('main.js'))!.contents.length;
  expect(bytes).toBeLessThan(300_000);
});

test("node-forge ships beside the bundle, where main.js's require finds it (the sharded Foo's webhook certificates)", () => {
  const bundle = JSON.parse(readFileSync(path.join(ROOT, 'controllers/foo/package.json'), 'utf8')).scripts.bundle;
  expect(bundle).toContain('--external:node-forge');
  expect(bundle).toContain('esbuild node-forge --bundle');
  expect(bundle).toContain('--outfile=dist/node_modules/node-forge/index.js');
  const copies = readFileSync(path.join(ROOT, 'controllers/foo/Dockerfile'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('COPY '));
  // main.js in /app: node resolves require('node-forge') to /app/node_modules/node-forge/index.js.
  expect(copies).toEqual(['COPY dist/main.js dist/main.js.map /app/', 'COPY dist/node_modules /app/node_modules']);
});
