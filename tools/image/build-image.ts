/**
 * Builds one image from a Dockerfile recipe (see dockerfile.ts): the base image's layers, one
 * layer per `COPY`, and the config the recipe sets (user, env, workdir, ports, entrypoint).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { ImageConfig, Image, layerOf, filesOf, readDockerArchive, writeImageArchive } from './image-archive';
import { parseDockerfile } from './dockerfile';

/** Options of {@link buildImage}. */
export interface BuildImageOptions {
  /** The build context: `COPY` sources are relative to it, and it holds the `Dockerfile`. */
  readonly context: string;
  /** A docker-archive tarball of the recipe's `FROM` image (or of a replacement base). */
  readonly baseImage: string;
  /** Names the image is tagged with. */
  readonly tags: readonly string[];
  /** Where to write the tarball. */
  readonly out: string;
}

/** The result of a build. */
export interface BuiltImage {
  /** `sha256:` of the image config (what `docker images`/`crictl images` show as the ID). */
  readonly id: string;
  readonly from: string;
  readonly config: ImageConfig;
}

/** Builds `options.context`'s Dockerfile into `options.out`. */
export async function buildImage(options: BuildImageOptions): Promise<BuiltImage> {
  const dockerfile = join(options.context, 'Dockerfile');
  const recipe = parseDockerfile(readFileSync(dockerfile, 'utf8'), dockerfile);
  const base = await readDockerArchive(options.baseImage);
  const layers = [...base.layers];
  for (const copy of recipe.copies) {
    const files = copy.sources.flatMap(src => filesOf(join(options.context, src), copy.sources.length > 1 || copy.dest.endsWith('/') ? `${copy.dest.replace(/\/?$/, '/')}` : copy.dest));
    layers.push(await layerOf(files, copy.uid, copy.gid));
  }
  const env = new Map((base.config.Env ?? []).map(e => [e.split('=')[0], e] as const));
  for (const [k, v] of Object.entries(recipe.env)) env.set(k, `${k}=${v}`);
  const config: ImageConfig = { ...base.config, Env: [...env.values()] };
  if (recipe.user !== undefined) config.User = recipe.user;
  if (recipe.workdir !== undefined) config.WorkingDir = recipe.workdir;
  if (recipe.entrypoint !== undefined) { config.Entrypoint = [...recipe.entrypoint]; delete config.Cmd; }
  if (recipe.cmd !== undefined) config.Cmd = [...recipe.cmd];
  if (recipe.stopSignal !== undefined) config.StopSignal = recipe.stopSignal;
  if (recipe.exposedPorts.length) config.ExposedPorts = { ...(base.config.ExposedPorts ?? {}), ...Object.fromEntries(recipe.exposedPorts.map(p => [p, {}])) };
  if (Object.keys(recipe.labels).length) config.Labels = { ...(base.config.Labels ?? {}), ...recipe.labels };
  const image: Image = { ...base, layers, config };
  const id = await writeImageArchive(image, options.tags, options.out);
  return { id, from: recipe.from, config };
}
