/**
 * `cdk8s-operator image`: the controller's container image, without Docker or any daemon — the
 * controller bundle (`cdk8s-operator bundle`) as one layer on a distroless Node base, written as one
 * tarball that is both a docker-archive (`docker load`, `ctr images import`, `skopeo copy
 * docker-archive:…`) and an OCI image layout (`crane push`, `skopeo copy oci-archive:…`), in the
 * manner of ko and Jib (no Dockerfile, no `RUN`).
 *
 * - Tag: `--tag`, else the image the chart's operator Deployment runs (`--chart`, default `dist/`),
 *   so the tag lives in one place: the chart.
 * - Config: the chart's non-root user (default 65532:65532), `WORKDIR /app`, the entrypoint the chart's
 *   container args are appended to (`node /app/<bundle>`), the chart's container ports.
 * - Base: a tarball (docker-archive or OCI layout), or an image reference pulled from its registry (the
 *   default: the distroless Node base, or the Dockerfile's FROM), with the docker config's credentials.
 * - Push: `--push` sends the image to the registry its tag names (registry v2 API, gzipped layers, an OCI
 *   manifest; blobs the registry has are skipped), as ko and Jib do.
 * - OCI annotations (also config labels): source, revision, version, title, created, base name and, for a
 *   pulled base, its digest. The revision comes from the project's own git repository (the current folder is
 *   its top level), never from a repository that merely encloses the project; none outside one.
 * - Reproducible: layer times are `SOURCE_DATE_EPOCH` (else 0), entries sorted, JSON keys ordered, so the
 *   same bundle, base and options give the same digest.
 * - `--dockerfile <path>` builds a Dockerfile recipe instead (FROM/COPY/USER/ENV/ENTRYPOINT…, no RUN):
 *   how this repository builds its own controllers' images.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as yaml from 'yaml';
import { buildImage } from './image/build-image';
import { ImageRecipe, parseDockerfile } from './image/dockerfile';
import { Image, imageOf, registryBlobs } from './image/image-archive';
import { parseImageReference, RegistryClient } from './image/registry';

/** The base the images are built for: distroless Node 20, non-root. */
export const DEFAULT_BASE_NAME = 'gcr.io/distroless/nodejs20-debian12:nonroot';
/** The Node binary of the distroless Node images. */
export const DISTROLESS_NODE = '/nodejs/bin/node';

/** Options of {@link imageCommand}. */
export interface ImageCommandOptions {
  /** @default 'bundle/controller.js' */
  readonly bundle?: string;
  /** Build this Dockerfile's recipe (its folder is the context) instead of the bundle's. @default - the bundle */
  readonly dockerfile?: string;
  /**
   * Base image: a tarball (docker-archive or OCI layout), or an image reference pulled from its registry.
   * @default - env BASE_IMAGE_TAR, else `baseName` pulled from its registry
   */
  readonly base?: string;
  /** Push the image to the registry its tag names. @default false */
  readonly push?: boolean;
  /** Registries reached over plain HTTP besides loopback ones (`host:port`). @default [] */
  readonly insecureRegistries?: readonly string[];
  /** The base's reference, recorded in the annotations. @default DEFAULT_BASE_NAME */
  readonly baseName?: string;
  /** @default - the image of the chart's operator Deployment in `chart` */
  readonly tag?: string;
  /** Synth output holding the operator Deployment. @default 'dist' */
  readonly chart?: string;
  /** @default 'images/<repository name>.tar' */
  readonly out?: string;
  /** `org.opencontainers.image.source`. @default - package.json `repository` */
  readonly source?: string;
  /** `org.opencontainers.image.revision`. @default - `git rev-parse HEAD` when the current folder is a git repository's top level */
  readonly revision?: string;
  /** Node options before the bundle in the entrypoint, e.g. `--max-semi-space-size=2`. @default - none */
  readonly nodeOptions?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** What the chart says about the operator's container. */
interface ChartContainer {
  readonly image: string;
  readonly user?: number;
  readonly group?: number;
  readonly ports: readonly number[];
  readonly command?: readonly string[];
}

/** Runs the command; returns the exit code. */
export async function imageCommand(options: ImageCommandOptions, log: (line: string) => void): Promise<number> {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const baseArg = options.base ?? env.BASE_IMAGE_TAR;
  // a base that exists as a file, or is named like a tarball, is one; anything else is an image reference
  const baseIsFile =
    baseArg !== undefined &&
    (fs.existsSync(baseArg) ||
      /\.(tar|tgz|tar\.gz)$/.test(baseArg) ||
      (baseArg.includes(path.sep) && !baseArg.includes(':')));
  if (baseIsFile && !fs.existsSync(baseArg!)) problems.push(`--base: ${baseArg} does not exist`);
  let baseRef: string | undefined;
  if (!baseIsFile) {
    baseRef = baseArg ?? options.baseName;
    if (baseRef) {
      try {
        parseImageReference(baseRef);
      } catch (e) {
        problems.push(`--base: ${(e as Error).message}`);
      }
    }
  }
  const bundle = options.bundle ?? 'bundle/controller.js';
  if (!options.dockerfile && !fs.existsSync(bundle)) {
    problems.push(`--bundle: ${bundle} does not exist; build it first (\`npx cdk8s-operator bundle src/main.ts\`)`);
  }
  if (options.dockerfile && !fs.existsSync(options.dockerfile)) {
    problems.push(`--dockerfile: ${options.dockerfile} does not exist`);
  }
  let container: ChartContainer | undefined;
  if (!options.tag) {
    const chart = options.chart ?? 'dist';
    try {
      container = chartContainer(chart);
    } catch (e) {
      problems.push(`--tag: not given, and ${(e as Error).message}`);
    }
  }
  if (problems.length) throw new Error(`image:\n${problems.map((p) => `  - ${p}`).join('\n')}`);

  const tag = options.tag ?? container!.image;
  const repository = tag.replace(/[:@][^/]*$/, '');
  const version = /:([^/:@]+)$/.exec(tag.replace(/@.*$/, ''))?.[1];
  const out = options.out ?? path.join('images', `${repository.split('/').pop()}.tar`);
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const dockerfileRecipe = options.dockerfile
    ? parseDockerfile(fs.readFileSync(options.dockerfile, 'utf8'), options.dockerfile)
    : undefined;
  const baseName = baseRef ?? options.baseName ?? dockerfileRecipe?.from ?? DEFAULT_BASE_NAME;
  const registry = new RegistryClient({ insecure: options.insecureRegistries, env });
  let base: string | Image = baseArg!;
  let baseDigest: string | undefined;
  if (!baseIsFile) {
    const pulled = await registry.pull(parseImageReference(baseName)).catch((e: Error) => {
      throw new Error(
        `image:\n  - --base: pulling ${baseName}: ${e.message}\n    (or give the base as a tarball: \`skopeo copy docker://${baseName} docker-archive:base.tar\`, then --base base.tar)`,
      );
    });
    base = imageOf(pulled.config, pulled.layers);
    baseDigest = pulled.digest;
    log(`pulled ${baseName} ${pulled.digest} (${pulled.layers.length} layers)`);
  }
  const pkg = readPackageJson();
  const source = options.source ?? repositoryUrl(pkg);
  const revision = options.revision ?? gitRevision(process.cwd());
  const created = new Date(Number(env.SOURCE_DATE_EPOCH ?? 0) * 1000).toISOString();
  const annotations: Record<string, string> = {
    'org.opencontainers.image.created': created,
    'org.opencontainers.image.title': repository.split('/').pop()!,
    'org.opencontainers.image.ref.name': tag,
    'org.opencontainers.image.base.name': baseName,
    ...(baseDigest ? { 'org.opencontainers.image.base.digest': baseDigest } : {}),
    ...(version ? { 'org.opencontainers.image.version': version } : {}),
    ...(source ? { 'org.opencontainers.image.source': source } : {}),
    ...(revision ? { 'org.opencontainers.image.revision': revision } : {}),
  };

  let context: string;
  let recipe: ImageRecipe | undefined;
  if (dockerfileRecipe) {
    context = path.dirname(options.dockerfile!);
    recipe = dockerfileRecipe;
  } else {
    context = path.dirname(bundle);
    const file = path.basename(bundle);
    const user = container?.user ?? 65532;
    const group = container?.group ?? user;
    if (user === 0) {
      throw new Error(`image: the chart runs the operator as root (runAsUser 0); the image runs as a non-root user`);
    }
    recipe = {
      from: baseName,
      workdir: '/app',
      // root-owned and read-only for the controller's user: the chart mounts the root filesystem read-only anyway
      copies: [{ sources: [file, ...(fs.existsSync(`${bundle}.map`) ? [`${file}.map`] : [])], dest: '/app/' }],
      user: `${user}:${group}`,
      env: { NODE_ENV: 'production' },
      exposedPorts: (container?.ports.length ? container.ports : [8080, 8081]).map((p) => `${p}/tcp`),
      // The chart sets args only (`--health-probe-bind-address=…`, `--leader-elect`): they follow this entrypoint.
      entrypoint: [DISTROLESS_NODE, ...(options.nodeOptions ?? []), `/app/${file}`],
      labels: {},
      stopSignal: 'SIGTERM',
    };
    if (container?.command?.length) {
      throw new Error(
        `image: the chart's operator container sets a command (${JSON.stringify(container.command)}); the image's entrypoint is \`node /app/${file}\` and the chart should set args only`,
      );
    }
  }
  const started = Date.now();
  const built = await buildImage({ context, recipe, baseImage: base, tags: [tag], out, annotations });
  log(
    `${tag} ${built.digest} (image id ${built.id}) → ${out} (${(fs.statSync(out).size / 1024 / 1024).toFixed(1)} MiB, ${Date.now() - started} ms)`,
  );
  if (!options.push) {
    log(
      `load it: \`ctr -n k8s.io images import ${out}\` or \`docker load -i ${out}\`; push it: --push, \`skopeo copy docker-archive:${out} docker://${tag}\` or \`crane push ${out} ${tag}\``,
    );
    return 0;
  }
  const pushStarted = Date.now();
  const { blobs, manifest } = registryBlobs(built.image, annotations);
  const pushed = await registry.push(parseImageReference(tag), blobs, manifest);
  // the tarball's manifest lists plain layers, the pushed one gzipped layers: a different digest, the one to deploy
  log(
    `pushed ${tag}@${pushed.digest} (${pushed.uploaded} blobs uploaded, ${pushed.skipped} already there, ${Date.now() - pushStarted} ms)`,
  );
  return 0;
}

/** The operator container (named `manager`) of the Deployments in a synth output folder. */
function chartContainer(dir: string): ChartContainer {
  if (!fs.existsSync(dir)) throw new Error(`${dir}/ does not exist: run synth first, or give the tag`);
  const found: ChartContainer[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    for (const doc of yaml
      .parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8'))
      .map((d) => d.toJS()) as any[]) {
      if (doc?.kind !== 'Deployment') continue;
      const pod = doc.spec?.template?.spec ?? {};
      for (const c of pod.containers ?? []) {
        if (c.name !== 'manager') continue;
        found.push({
          image: c.image,
          user: c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser,
          group: c.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup,
          ports: (c.ports ?? []).map((p: { containerPort: number }) => p.containerPort),
          command: c.command,
        });
      }
    }
  }
  const images = [...new Set(found.map((c) => c.image))];
  if (images.length !== 1) {
    throw new Error(
      images.length
        ? `${dir}/ runs ${images.length} operator images (${images.join(', ')}): give --tag`
        : `${dir}/ has no operator Deployment (a container named 'manager'): give --tag`,
    );
  }
  return found[0];
}

function readPackageJson(): { repository?: string | { url?: string } } | undefined {
  try {
    return JSON.parse(fs.readFileSync('package.json', 'utf8'));
  } catch {
    return undefined;
  }
}

function repositoryUrl(pkg: ReturnType<typeof readPackageJson>): string | undefined {
  const repo = pkg?.repository;
  const url = typeof repo === 'string' ? repo : repo?.url;
  return url?.replace(/^git\+/, '').replace(/\.git$/, '');
}

/**
 * HEAD of the git repository whose top level is `dir` (the project), else undefined: a project inside another
 * repository (a monorepo's folder, a tmp dir under a home in git) is not labelled with that repository's commit.
 */
export function gitRevision(dir: string): string | undefined {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    if (fs.realpathSync(git('rev-parse', '--show-toplevel')) !== fs.realpathSync(dir)) return undefined;
    return git('rev-parse', 'HEAD') || undefined;
  } catch {
    return undefined;
  }
}
