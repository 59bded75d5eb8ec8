/**
 * Builds one image from a recipe (a Dockerfile's, see dockerfile.ts, or the one `cdk8s-operator image`
 * makes for a controller bundle): the base image's layers, one layer per `COPY`, and the config the
 * recipe sets (user, env, workdir, ports, entrypoint, labels).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { parseDockerfile, ImageRecipe } from './dockerfile';
import { ImageConfig, Image, layerOf, filesOf, readDockerArchive, writeImage } from './image-archive';

/** Options of {@link buildImage}. */
export interface BuildImageOptions {
  /** The build context: `COPY` sources are relative to it (and it holds the `Dockerfile` when no `recipe` is given). */
  readonly context: string;
  /** @default - the context's `Dockerfile` */
  readonly recipe?: ImageRecipe;
  /** A docker-archive or OCI-layout tarball of the recipe's `FROM` image (or of a replacement base), or the image pulled from a registry. */
  readonly baseImage: string | Image;
  /** Names the image is tagged with. */
  readonly tags: readonly string[];
  /** Where to write the tarball. */
  readonly out: string;
  /** OCI annotations of the manifest (also set as config labels). @default - none */
  readonly annotations?: Readonly<Record<string, string>>;
}

/** The result of a build. */
export interface BuiltImage {
  /** `sha256:` of the image config (what `docker images`/`crictl images` show as the ID). */
  readonly id: string;
  /** `sha256:` of the OCI manifest (the digest a registry shows for a push of this image). */
  readonly digest: string;
  readonly from: string;
  readonly config: ImageConfig;
  /** The image built (what a registry push sends). */
  readonly image: Image;
}

/** Builds the recipe (by default `options.context`'s Dockerfile) into `options.out`. */
export async function buildImage(options: BuildImageOptions): Promise<BuiltImage> {
  const dockerfile = join(options.context, 'Dockerfile');
  const recipe = options.recipe ?? parseDockerfile(readFileSync(dockerfile, 'utf8'), dockerfile);
  const base = typeof options.baseImage === 'string' ? await readDockerArchive(options.baseImage) : options.baseImage;
  const layers = [...base.layers];
  for (const copy of recipe.copies) {
    const files = copy.sources.flatMap((src) =>
      filesOf(
        join(options.context, src),
        copy.sources.length > 1 || copy.dest.endsWith('/') ? `${copy.dest.replace(/\/?$/, '/')}` : copy.dest,
      ),
    );
    layers.push(await layerOf(files, copy.uid, copy.gid));
  }
  const env = new Map((base.config.Env ?? []).map((e) => [e.split('=')[0], e] as const));
  for (const [k, v] of Object.entries(recipe.env)) env.set(k, `${k}=${v}`);
  const config: ImageConfig = { ...base.config, Env: [...env.values()] };
  if (recipe.user !== undefined) config.User = recipe.user;
  if (recipe.workdir !== undefined) config.WorkingDir = recipe.workdir;
  if (recipe.entrypoint !== undefined) {
    config.Entrypoint = [...recipe.entrypoint];
    delete config.Cmd;
  }
  if (recipe.cmd !== undefined) config.Cmd = [...recipe.cmd];
  if (recipe.stopSignal !== undefined) config.StopSignal = recipe.stopSignal;
  if (recipe.exposedPorts.length) {
    config.ExposedPorts = {
      ...(base.config.ExposedPorts ?? {}),
      ...Object.fromEntries(recipe.exposedPorts.map((p) => [p, {}])),
    };
  }
  const labels = { ...recipe.labels, ...(options.annotations ?? {}) };
  if (Object.keys(labels).length) config.Labels = { ...(base.config.Labels ?? {}), ...labels };
  const image: Image = { ...base, layers, config };
  const written = await writeImage(image, options.tags, options.out, options.annotations);
  return { ...written, from: recipe.from, config, image };
}
