/**
 * `npx projen images`: bundles every controller that has a Dockerfile (controllers/<name>) and
 * builds its image tarball with the package's own command, `cdk8s-operator image --dockerfile`
 * (cli/image-command.ts: no Docker, no daemon), tagged as the charts reference it (controllers/images.ts).
 *
 *   npx projen images --base <docker-archive.tar> [--registry ghcr.io/acme] [--out images] [name...]
 *
 * `--base` (or `BASE_IMAGE_TAR`) is the image the recipes' `FROM` names, saved as a tarball
 * (`docker save gcr.io/distroless/nodejs20-debian12:nonroot`, or ../shared/k8s/node/build-images.sh,
 * which builds a distroless-like Node 20 base from Debian packages into
 * ~/.cache/k8s-node/images/distroless-node20.tar). Load the results with `docker load -i`,
 * `ctr -n k8s.io images import`, or push them with `skopeo copy docker-archive:<tar> docker://…`.
 */
import { execFileSync } from 'child_process';
import { existsSync, mkdirSync, readdirSync } from 'fs';
import { join, resolve } from 'path';
import { parseArgs } from 'util';
import { imageCommand } from '../../cli/image-command';
import { controllerImage, CONTROLLER_IMAGE_REGISTRY } from '../../controllers/images';

const ROOT = resolve(__dirname, '../..');

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      base: { type: 'string' },
      registry: { type: 'string' },
      out: { type: 'string' },
      'no-bundle': { type: 'boolean' },
    },
    allowPositionals: true,
  });
  const base = values.base ?? process.env.BASE_IMAGE_TAR;
  if (!base) {
    throw new Error(
      '--base: give the base image as a docker-archive tarball (docker save, or ../shared/k8s/node/build-images.sh → ~/.cache/k8s-node/images/distroless-node20.tar), or set BASE_IMAGE_TAR',
    );
  }
  if (!existsSync(base)) throw new Error(`--base: ${base} does not exist`);
  const out = resolve(values.out ?? join(ROOT, 'images'));
  mkdirSync(out, { recursive: true });
  const all = readdirSync(join(ROOT, 'controllers'))
    .filter((n) => existsSync(join(ROOT, 'controllers', n, 'Dockerfile')))
    .sort();
  const unknown = positionals.filter((p) => !all.includes(p));
  if (unknown.length) {
    throw new Error(`no controller with a Dockerfile named ${unknown.join(', ')} (have: ${all.join(', ')})`);
  }
  for (const name of positionals.length ? positionals : all) {
    const context = join(ROOT, 'controllers', name);
    // The controller's own bundle script (esbuild), so the image holds exactly what `npm run bundle` makes.
    if (!values['no-bundle']) execFileSync('npm', ['run', '--silent', 'bundle'], { cwd: context, stdio: 'inherit' });
    await imageCommand(
      {
        dockerfile: join(context, 'Dockerfile'),
        base,
        tag: controllerImage(name, values.registry ?? CONTROLLER_IMAGE_REGISTRY),
        out: join(out, `${name}-controller.tar`),
        source: 'https://github.com/cdk8s-operator/cdk8s-operator',
      },
      (line) => process.stdout.write(`${line}\n`),
    );
  }
}

main().catch((err) => {
  process.stderr.write(`images: ${(err as Error).message}\n`);
  process.exit(1);
});
