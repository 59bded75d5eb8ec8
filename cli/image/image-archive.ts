/**
 * Image tarballs without a container runtime: reads a base image saved as a docker-archive
 * (`docker save`, `skopeo copy … docker-archive:`) or an OCI layout tarball and writes a new one with extra layers
 * and config, in the docker-archive format that `docker load`, `ctr images import`,
 * `podman load` and `skopeo copy docker-archive:…` accept. An `index.json`/`oci-layout` is written
 * beside `manifest.json`, so OCI tools (`crane push`, `oras`) read the same file as an OCI layout.
 *
 * Deterministic: file times are fixed (`SOURCE_DATE_EPOCH`, else 0) and entries sorted, so the
 * same inputs give the same image ID.
 *
 * @see https://github.com/moby/docker-image-spec/blob/main/spec.md
 * @see https://github.com/opencontainers/image-spec/blob/main/image-layout.md
 */
import { createHash } from 'crypto';
import { createReadStream, createWriteStream, readdirSync, readFileSync, renameSync, statSync } from 'fs';
import { join, posix, relative } from 'path';
import { pipeline } from 'stream/promises';
import { gunzipSync, gzipSync } from 'zlib';
import * as tar from 'tar-stream';

/** The image configuration (`config` of the image JSON). */
export interface ImageConfig {
  User?: string;
  Env?: string[];
  Entrypoint?: string[];
  Cmd?: string[];
  WorkingDir?: string;
  ExposedPorts?: Record<string, object>;
  Labels?: Record<string, string>;
  StopSignal?: string;
  [key: string]: unknown;
}

/** An image in memory: uncompressed layer tars and the config. */
export interface Image {
  readonly layers: readonly Buffer[];
  readonly config: ImageConfig;
  readonly architecture: string;
  readonly os: string;
}

/** A file for a new layer. */
export interface LayerFile {
  /** Absolute path in the image. */
  readonly path: string;
  readonly content: Buffer;
  readonly mode: number;
}

const EPOCH = new Date(Number(process.env.SOURCE_DATE_EPOCH ?? 0) * 1000);

/**
 * Reads a base image tarball: a docker-archive (`docker save`, `skopeo copy … docker-archive:`) or an
 * OCI image layout in a tar (`skopeo copy … oci-archive:`, `crane pull --format=oci` then `tar`); its
 * first image. Gzipped layers are decompressed (the new image's layers are plain tars).
 */
export async function readDockerArchive(file: string): Promise<Image> {
  const entries = new Map<string, Buffer>();
  const extract = tar.extract();
  extract.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: unknown) => chunks.push(c as Buffer));
    stream.on('end', () => {
      if (header.type === 'file') entries.set(posix.normalize(header.name), Buffer.concat(chunks));
      next();
    });
    stream.resume();
  });
  await pipeline(createReadStream(file), extract);
  const need = (name: string) => {
    const b = entries.get(posix.normalize(name));
    if (!b) throw new Error(`${file}: the archive's manifest names ${name}, which the archive does not hold`);
    return b;
  };
  const manifest = entries.get('manifest.json');
  let configBlob: Buffer;
  let layers: Buffer[];
  if (manifest) {
    const [first] = JSON.parse(manifest.toString()) as { Config: string; Layers: string[] }[];
    configBlob = need(first.Config);
    layers = first.Layers.map(need);
  } else if (entries.has('index.json')) {
    const blob = (digest: string) => need(`blobs/${digest.replace(':', '/')}`);
    let descriptor = (JSON.parse(entries.get('index.json')!.toString()) as OciIndex).manifests[0];
    // An index of indexes (a multi-platform base): its linux/amd64 entry, else its first.
    while (
      descriptor?.mediaType?.endsWith('image.index.v1+json') ||
      descriptor?.mediaType?.endsWith('manifest.list.v2+json')
    ) {
      const nested = JSON.parse(blob(descriptor.digest).toString()) as OciIndex;
      descriptor =
        nested.manifests.find((m) => m.platform?.os === 'linux' && m.platform?.architecture === 'amd64') ??
        nested.manifests[0];
    }
    if (!descriptor) throw new Error(`${file}: index.json lists no image`);
    const ociManifest = JSON.parse(blob(descriptor.digest).toString()) as {
      config: { digest: string };
      layers: { digest: string }[];
    };
    configBlob = blob(ociManifest.config.digest);
    layers = ociManifest.layers.map((l) => blob(l.digest));
  } else {
    throw new Error(
      `${file}: neither a docker-archive (no manifest.json) nor an OCI image layout (no index.json); save the base image with \`skopeo copy docker://<base> docker-archive:<file>\`, \`docker save\` or \`crane pull\``,
    );
  }
  return imageOf(configBlob, layers);
}

/** An image from its config blob and its layers as stored (gzip or plain tar; the new image holds plain tars). */
export function imageOf(configBlob: Buffer, layers: readonly Buffer[]): Image {
  const image = JSON.parse(configBlob.toString());
  // gzip magic: registries and OCI layouts keep layers compressed
  const plain = (layer: Buffer) => (layer[0] === 0x1f && layer[1] === 0x8b ? gunzipSync(layer) : layer);
  return {
    layers: layers.map(plain),
    config: image.config ?? {},
    architecture: image.architecture ?? 'amd64',
    os: image.os ?? 'linux',
  };
}

interface OciIndex {
  readonly manifests: { mediaType?: string; digest: string; platform?: { os?: string; architecture?: string } }[];
}

/** A layer tar holding `files` (and their parent directories), owned by `uid:gid`. */
export async function layerOf(files: readonly LayerFile[], uid = 0, gid = 0): Promise<Buffer> {
  const pack = tar.pack();
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.path.replace(/^\/+/, '').split('/');
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  const common = { mtime: EPOCH, uid, gid, uname: '', gname: '' };
  for (const d of [...dirs].sort()) pack.entry({ ...common, name: `${d}/`, type: 'directory', mode: 0o755 });
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    pack.entry(
      { ...common, name: f.path.replace(/^\/+/, ''), type: 'file', mode: f.mode, size: f.content.length },
      f.content,
    );
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Every file under `dir` (recursively) as layer files below `dest`. */
export function filesOf(source: string, dest: string): LayerFile[] {
  const st = statSync(source);
  if (st.isFile()) {
    const path = dest.endsWith('/') ? posix.join(dest, source.split(/[\\/]/).pop()!) : dest;
    return [{ path, content: readFileSync(source), mode: st.mode & 0o777 }];
  }
  const out: LayerFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) {
        walk(p);
      } else {
        out.push({
          path: posix.join(dest, relative(source, p).split(/[\\/]/).join('/')),
          content: readFileSync(p),
          mode: statSync(p).mode & 0o777,
        });
      }
    }
  };
  walk(source);
  return out;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** What {@link writeImageArchive} wrote. */
export interface WrittenImage {
  /** `sha256:` of the config: the image ID (`docker images`, `crictl images`). */
  readonly id: string;
  /** `sha256:` of the OCI manifest: the digest a registry reports after a push of these bytes. */
  readonly digest: string;
}

/**
 * Writes `image` as a docker-archive (+ OCI layout) tarball tagged `tags`; returns the image ID.
 * `annotations` go on the OCI manifest (`org.opencontainers.image.*`); the config's `Labels` are what
 * `docker inspect` shows.
 */
export async function writeImageArchive(
  image: Image,
  tags: readonly string[],
  out: string,
  annotations?: Readonly<Record<string, string>>,
): Promise<string> {
  return (await writeImage(image, tags, out, annotations)).id;
}

/** The image config blob (the same for the tarball and a registry push: diff_ids are of the plain layers). */
function configBlobOf(image: Image): Buffer {
  const diffIds = image.layers.map((l) => `sha256:${sha256(l)}`);
  return Buffer.from(
    JSON.stringify({
      architecture: image.architecture,
      os: image.os,
      created: EPOCH.toISOString(),
      config: image.config,
      rootfs: { type: 'layers', diff_ids: diffIds },
      history: diffIds.map(() => ({ created: EPOCH.toISOString(), created_by: 'cdk8s-operator image' })),
    }),
  );
}

/** A blob of a registry push. */
export interface PushBlob {
  readonly mediaType: string;
  readonly digest: string;
  readonly data: Buffer;
}

/**
 * What a registry push of `image` sends: the layers gzipped (as ko and Jib push them; gzip without a file name or
 * time, so the same layer gives the same bytes), the config, and an OCI manifest with `annotations`.
 */
export function registryBlobs(
  image: Image,
  annotations?: Readonly<Record<string, string>>,
): { blobs: PushBlob[]; manifest: PushBlob } {
  const config = configBlobOf(image);
  const layers = image.layers.map((l) => gzipSync(l, { level: 6 }));
  const blobs: PushBlob[] = [
    ...layers.map((data) => ({
      mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
      digest: `sha256:${sha256(data)}`,
      data,
    })),
    { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${sha256(config)}`, data: config },
  ];
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: blobs[blobs.length - 1].mediaType,
        digest: blobs[blobs.length - 1].digest,
        size: config.length,
      },
      layers: blobs.slice(0, -1).map((b) => ({ mediaType: b.mediaType, digest: b.digest, size: b.data.length })),
      ...(annotations && Object.keys(annotations).length ? { annotations: sortedObject(annotations) } : {}),
    }),
  );
  return {
    blobs,
    manifest: {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: `sha256:${sha256(manifest)}`,
      data: manifest,
    },
  };
}

/** {@link writeImageArchive}, returning the manifest digest too. */
export async function writeImage(
  image: Image,
  tags: readonly string[],
  out: string,
  annotations?: Readonly<Record<string, string>>,
): Promise<WrittenImage> {
  const configJson = configBlobOf(image);
  const configDigest = sha256(configJson);
  const layerNames = image.layers.map((l) => `blobs/sha256/${sha256(l)}`);
  const ociManifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${configDigest}`,
        size: configJson.length,
      },
      layers: image.layers.map((l) => ({
        mediaType: 'application/vnd.oci.image.layer.v1.tar',
        digest: `sha256:${sha256(l)}`,
        size: l.length,
      })),
      ...(annotations && Object.keys(annotations).length ? { annotations: sortedObject(annotations) } : {}),
    }),
  );
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: tags.map((t) => ({
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        digest: `sha256:${sha256(ociManifest)}`,
        size: ociManifest.length,
        annotations: { 'io.containerd.image.name': t, 'org.opencontainers.image.ref.name': t.split(':').pop() },
      })),
    }),
  );
  const dockerManifest = Buffer.from(
    JSON.stringify([{ Config: `blobs/sha256/${configDigest}`, RepoTags: [...tags], Layers: layerNames }]),
  );

  const pack = tar.pack();
  const add = (name: string, content: Buffer) =>
    pack.entry({ name, size: content.length, mode: 0o644, mtime: EPOCH }, content);
  pack.entry({ name: 'blobs/', type: 'directory', mode: 0o755, mtime: EPOCH });
  pack.entry({ name: 'blobs/sha256/', type: 'directory', mode: 0o755, mtime: EPOCH });
  const written = new Set<string>();
  image.layers.forEach((l, i) => {
    if (!written.has(layerNames[i])) {
      written.add(layerNames[i]);
      add(layerNames[i], l);
    }
  });
  add(`blobs/sha256/${configDigest}`, configJson);
  add(`blobs/sha256/${sha256(ociManifest)}`, ociManifest);
  add('oci-layout', Buffer.from(JSON.stringify({ imageLayoutVersion: '1.0.0' })));
  add('index.json', index);
  add('manifest.json', dockerManifest);
  pack.finalize();
  await pipeline(pack, createWriteStream(`${out}.partial`));
  renameSync(`${out}.partial`, out);
  return { id: `sha256:${configDigest}`, digest: `sha256:${sha256(ociManifest)}` };
}

/** Keys sorted, so the same annotations always serialize to the same bytes. */
function sortedObject(o: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k]]),
  );
}
