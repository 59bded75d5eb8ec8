/**
 * A client of the OCI distribution API (registry v2), as ko and Jib use it: pull an image's manifest, config and
 * layers (OCI and Docker schema 2 media types; from a multi-platform index, the linux/amd64 image), and push blobs
 * (existing ones skipped after a HEAD) and a manifest.
 *
 * - References: `host[:port]/path[:tag|@sha256:…]`; no host (or a first part without `.`/`:` other than
 *   `localhost`) means Docker Hub (`registry-1.docker.io`, `library/` for one-part names), as docker does.
 * - Transport: HTTPS, except plain HTTP for a loopback host (localhost, 127.0.0.0/8, ::1), as
 *   go-containerregistry does, and for the hosts in `insecure`.
 * - Credentials: the docker config (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`): `auths[host].auth`
 *   (base64 `user:password`), or a `credHelpers[host]`/`credsStore` helper (`docker-credential-<name> get`). A
 *   `401` with `WWW-Authenticate: Basic` is answered with them; with `Bearer` a token is fetched from the realm
 *   (anonymously when there are none), scoped to the repository's pull or push.
 * - Every blob read is checked against its digest.
 *
 * @see https://github.com/opencontainers/distribution-spec/blob/main/spec.md
 */
import { spawnSync } from 'child_process';
import { createHash } from 'crypto';
import { existsSync, readFileSync } from 'fs';
import { homedir } from 'os';
import { join } from 'path';

/** Media types of manifests and indexes this client reads. */
export const MEDIA_TYPES = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerList: 'application/vnd.docker.distribution.manifest.list.v2+json',
} as const;

/** A parsed image reference. */
export interface ImageReference {
  /** Registry host (and port) as in the docker config: `localhost:5000`, `ghcr.io`, `registry-1.docker.io`. */
  readonly registry: string;
  readonly repository: string;
  /** A tag, or a `sha256:` digest. */
  readonly reference: string;
}

/** Parses `host[:port]/path[:tag|@digest]` (tag `latest` when none). */
export function parseImageReference(ref: string): ImageReference {
  const m =
    /^(?:([^/]+)\/)?([a-z0-9]+(?:[._-][a-z0-9]+|__)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*)(?::([\w][\w.-]{0,127}))?(?:@(sha256:[a-f0-9]{64}))?$/.exec(
      ref,
    );
  if (!m) {
    throw new Error(
      `'${ref}' is not an image reference (host[:port]/repository[:tag|@sha256:…], lower-case repository)`,
    );
  }
  let host: string | undefined = m[1];
  let path = m[2];
  const [, , , tag, digest] = m;
  if (host && !/[.:]/.test(host) && host !== 'localhost') {
    path = `${host}/${path}`;
    host = undefined;
  }
  if (!host || host === 'docker.io' || host === 'index.docker.io') {
    host = 'registry-1.docker.io';
    if (!path.includes('/')) path = `library/${path}`;
  }
  return { registry: host, repository: path, reference: digest ?? tag ?? 'latest' };
}

/** A blob read from or written to a registry. */
export interface Blob {
  readonly mediaType: string;
  readonly digest: string;
  readonly data: Buffer;
}

/** An image pulled from a registry. */
export interface PulledImage {
  /** The digest of the manifest (of the platform's manifest when the reference names an index). */
  readonly digest: string;
  readonly manifest: {
    mediaType?: string;
    config: { digest: string };
    layers: { mediaType: string; digest: string; size: number }[];
  };
  readonly config: Buffer;
  /** Layers as stored (gzip or plain tar), in order. */
  readonly layers: readonly Buffer[];
}

/** Options of {@link RegistryClient}. */
export interface RegistryClientOptions {
  /** Hosts reached over plain HTTP besides the loopback ones. @default [] */
  readonly insecure?: readonly string[];
  /** @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** The platform picked from an index. @default linux/amd64 */
  readonly platform?: { readonly os: string; readonly architecture: string };
}

/** `user:password` credentials. */
interface Credentials {
  readonly username: string;
  readonly password: string;
}

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** See module docs. */
export class RegistryClient {
  private readonly tokens = new Map<string, string>();
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: RegistryClientOptions = {}) {
    this.env = options.env ?? process.env;
  }

  /** Pulls the image `ref` names (the platform's image of an index). */
  async pull(ref: ImageReference): Promise<PulledImage> {
    const accept = Object.values(MEDIA_TYPES).join(', ');
    let { body, digest, mediaType } = await this.getManifest(ref, ref.reference, accept);
    let json = JSON.parse(body.toString());
    if (mediaType === MEDIA_TYPES.ociIndex || mediaType === MEDIA_TYPES.dockerList || json.manifests) {
      const { os, architecture } = this.options.platform ?? { os: 'linux', architecture: 'amd64' };
      const entry = (json.manifests as { digest: string; platform?: { os?: string; architecture?: string } }[]).find(
        (d) => d.platform?.os === os && d.platform?.architecture === architecture,
      );
      if (!entry) {
        throw new Error(
          `${describe(ref)}: the index has no ${os}/${architecture} image (it has ${json.manifests.map((d: any) => `${d.platform?.os}/${d.platform?.architecture}`).join(', ')})`,
        );
      }
      ({ body, digest, mediaType } = await this.getManifest(ref, entry.digest, accept));
      json = JSON.parse(body.toString());
    }
    if (!json.config || !Array.isArray(json.layers)) {
      throw new Error(`${describe(ref)}: ${mediaType} is not an image manifest (Docker schema 1 is not supported)`);
    }
    const config = await this.getBlob(ref, json.config.digest);
    const layers: Buffer[] = [];
    for (const layer of json.layers) layers.push(await this.getBlob(ref, layer.digest));
    return { digest, manifest: json, config, layers };
  }

  /** Pushes blobs (skipping those the repository has) and then the manifest under `ref.reference`; returns its digest. */
  async push(
    ref: ImageReference,
    blobs: readonly Blob[],
    manifest: Blob,
  ): Promise<{ digest: string; uploaded: number; skipped: number }> {
    let uploaded = 0;
    let skipped = 0;
    for (const blob of blobs) {
      const head = await this.request(ref, 'push', 'HEAD', `/blobs/${blob.digest}`);
      if (head.status === 200) {
        skipped++;
        continue;
      }
      const start = await this.request(ref, 'push', 'POST', '/blobs/uploads/');
      if (start.status !== 202) throw await failure(ref, `POST /v2/${ref.repository}/blobs/uploads/`, start);
      const location = new URL(start.headers.get('location') ?? '', this.base(ref.registry));
      location.searchParams.set('digest', blob.digest);
      const put = await this.request(ref, 'push', 'PUT', location.toString(), blob.data, {
        'content-type': 'application/octet-stream',
      });
      if (put.status !== 201) throw await failure(ref, `PUT blob ${blob.digest}`, put);
      uploaded++;
    }
    const put = await this.request(ref, 'push', 'PUT', `/manifests/${ref.reference}`, manifest.data, {
      'content-type': manifest.mediaType,
    });
    if (put.status !== 201) throw await failure(ref, `PUT /v2/${ref.repository}/manifests/${ref.reference}`, put);
    const digest = put.headers.get('docker-content-digest') ?? manifest.digest;
    if (digest !== manifest.digest) {
      throw new Error(`${describe(ref)}: the registry stored the manifest as ${digest}, not ${manifest.digest}`);
    }
    return { digest, uploaded, skipped };
  }

  private async getManifest(
    ref: ImageReference,
    reference: string,
    accept: string,
  ): Promise<{ body: Buffer; digest: string; mediaType: string }> {
    const res = await this.request(ref, 'pull', 'GET', `/manifests/${reference}`, undefined, { accept });
    if (res.status !== 200) throw await failure(ref, `GET /v2/${ref.repository}/manifests/${reference}`, res);
    const body = Buffer.from(await res.arrayBuffer());
    const digest = sha256(body);
    if (reference.startsWith('sha256:') && digest !== reference) {
      throw new Error(`${describe(ref)}: manifest ${reference} has digest ${digest}`);
    }
    return { body, digest, mediaType: (res.headers.get('content-type') ?? '').split(';')[0] };
  }

  private async getBlob(ref: ImageReference, digest: string): Promise<Buffer> {
    const res = await this.request(ref, 'pull', 'GET', `/blobs/${digest}`);
    if (res.status !== 200) throw await failure(ref, `GET /v2/${ref.repository}/blobs/${digest}`, res);
    const data = Buffer.from(await res.arrayBuffer());
    if (sha256(data) !== digest) throw new Error(`${describe(ref)}: blob ${digest} has digest ${sha256(data)}`);
    return data;
  }

  private base(registry: string): string {
    const host = registry.replace(/:\d+$/, '');
    const loopback = host === 'localhost' || /^127\./.test(host) || host === '[::1]';
    return `${loopback || (this.options.insecure ?? []).includes(registry) ? 'http' : 'https'}://${registry}`;
  }

  /** A request under `/v2/<repository>` (or to an absolute URL), authenticated as the registry asks. */
  private async request(
    ref: ImageReference,
    action: 'pull' | 'push',
    method: string,
    path: string,
    body?: Buffer,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const url = /^https?:/.test(path) ? path : `${this.base(ref.registry)}/v2/${ref.repository}${path}`;
    const scope = `repository:${ref.repository}:${action === 'push' ? 'pull,push' : 'pull'}`;
    const send = (authorization?: string) =>
      fetch(url, {
        method,
        body,
        headers: { ...headers, ...(authorization ? { authorization } : {}) },
        redirect: 'follow',
      }).catch((e: Error & { cause?: Error }) => {
        throw new Error(`${describe(ref)}: ${method} ${url}: ${e.cause?.message ?? e.message}`);
      });
    const cached = this.tokens.get(`${ref.registry} ${scope}`);
    let res = await send(cached);
    if (res.status !== 401) return res;
    const challenge = res.headers.get('www-authenticate') ?? '';
    const creds = this.credentials(ref.registry);
    let authorization: string;
    if (/^basic/i.test(challenge)) {
      if (!creds) throw noCredentials(ref, this.configFile());
      authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    } else if (/^bearer/i.test(challenge)) {
      authorization = `Bearer ${await this.token(ref, challenge, scope, creds)}`;
    } else {
      throw new Error(
        `${describe(ref)}: ${method} ${url}: 401 with an authentication scheme this client does not know ('${challenge}')`,
      );
    }
    this.tokens.set(`${ref.registry} ${scope}`, authorization);
    res = await send(authorization);
    if (res.status === 401) {
      // an anonymous token without the access asked for: the registry wants credentials, as with Basic
      if (!creds) throw noCredentials(ref, this.configFile());
      throw await failure(ref, `${method} ${url} (with the credentials of ${this.configFile()})`, res);
    }
    return res;
  }

  private async token(
    ref: ImageReference,
    challenge: string,
    scope: string,
    creds: Credentials | undefined,
  ): Promise<string> {
    const params = Object.fromEntries([...challenge.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!params.realm) throw new Error(`${describe(ref)}: a Bearer challenge without a realm ('${challenge}')`);
    const url = new URL(params.realm);
    if (params.service) url.searchParams.set('service', params.service);
    url.searchParams.set('scope', scope);
    const res = await fetch(url, {
      headers: creds
        ? { authorization: `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}` }
        : {},
    });
    if (res.status !== 200) {
      const as = creds ? `with the credentials of ${this.configFile()}` : 'anonymously';
      throw await failure(ref, `token from ${url.origin}${url.pathname} (${as})`, res);
    }
    const json = (await res.json()) as { token?: string; access_token?: string };
    const token = json.token ?? json.access_token;
    if (!token) throw new Error(`${describe(ref)}: the token service ${url.origin} answered without a token`);
    return token;
  }

  private configFile(): string {
    return join(this.env.DOCKER_CONFIG ?? join(this.env.HOME ?? homedir(), '.docker'), 'config.json');
  }

  /** The docker config's credentials for `registry`, or undefined. */
  private credentials(registry: string): Credentials | undefined {
    const file = this.configFile();
    if (!existsSync(file)) return undefined;
    let config: {
      auths?: Record<string, { auth?: string; username?: string; password?: string }>;
      credHelpers?: Record<string, string>;
      credsStore?: string;
    };
    try {
      config = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`${file}: not JSON (${(e as Error).message})`);
    }
    // Docker Hub's credentials are stored under its v1 URL
    const keys =
      registry === 'registry-1.docker.io'
        ? ['https://index.docker.io/v1/', 'index.docker.io', 'docker.io']
        : [registry, `https://${registry}`, `http://${registry}`];
    const helper = keys.map((k) => config.credHelpers?.[k]).find(Boolean) ?? config.credsStore;
    for (const key of keys) {
      const entry = config.auths?.[key];
      if (entry?.auth) {
        const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
        const colon = decoded.indexOf(':');
        if (colon < 0) throw new Error(`${file}: auths["${key}"].auth is not base64 of user:password`);
        return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
      }
      if (entry?.username && entry.password) return { username: entry.username, password: entry.password };
    }
    if (helper) {
      const out = spawnSync(`docker-credential-${helper}`, ['get'], { input: keys[0], encoding: 'utf8' });
      if (out.error) {
        throw new Error(`${file}: credential helper docker-credential-${helper} for ${registry}: ${out.error.message}`);
      }
      if (out.status === 0) {
        const reply = JSON.parse(out.stdout) as { Username: string; Secret: string };
        return { username: reply.Username, password: reply.Secret };
      }
    }
    return undefined;
  }
}

function describe(ref: ImageReference): string {
  return `${ref.registry}/${ref.repository}${ref.reference.startsWith('sha256:') ? '@' : ':'}${ref.reference}`;
}

function noCredentials(ref: ImageReference, file: string): Error {
  return new Error(
    `${describe(ref)}: the registry asks for credentials and ${file} has none for ${ref.registry} ` +
      `(log in with \`docker login ${ref.registry}\`, \`skopeo login ${ref.registry}\` or \`crane auth login ${ref.registry}\`, or set DOCKER_CONFIG)`,
  );
}

async function failure(ref: ImageReference, what: string, res: Response): Promise<Error> {
  const text = await res.text().catch(() => '');
  let detail = text.slice(0, 300);
  try {
    const errors = (JSON.parse(text) as { errors?: { code: string; message: string }[] }).errors;
    if (errors?.length) detail = errors.map((e) => `${e.code}: ${e.message}`).join('; ');
  } catch {
    /* not JSON */
  }
  return new Error(`${describe(ref)}: ${what}: HTTP ${res.status}${detail ? ` (${detail})` : ''}`);
}
