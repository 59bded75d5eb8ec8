/**
 * The connection of a controller process: the common kubeconfig shapes read without client-node.
 *
 * Why: client-node's KubeConfig module pulls its generated API models, node-fetch, whatwg-url (a
 * Unicode table), openid-client and proxy agents into every controller bundle; parsing and loading them
 * costs a controller about 20 MiB of its resident set before it caches a single object (measured on the
 * Foo bundle: 67 MiB with it, 47 MiB without). A controller in a pod needs none of it: it reads its
 * ServiceAccount token and CA from files.
 *
 * Expected flow: the manager calls {@link loadDefaultConnection}, which reads what client-node's
 * `loadFromDefault` would read (the first `KUBECONFIG` file, else `~/.kube/config`, else the in-cluster
 * ServiceAccount) and returns a {@link LightKubeConfig} when that config uses only what this module
 * implements: a server, a CA (file or data), `insecure-skip-tls-verify`, `tls-server-name`, and a bearer
 * token (`token`, `token-file`), a client certificate and key (files or data) or basic auth. Everything
 * else (several `KUBECONFIG` files to merge, `exec` and `auth-provider` plugins, `proxy-url`,
 * impersonation) is loaded by client-node itself, exactly as before.
 *
 * Guarantees:
 * - Same semantics as client-node for what it handles (data fields base64, a trailing `/` of the server dropped, `token` before
 *   `token-file`); relative paths are resolved against the kubeconfig's folder, as client-go does.
 * - A token file (in-cluster, or a kubeconfig's `token-file`) is re-read once a minute, as client-go does, so
 *   projected ServiceAccount tokens and tokens refreshed on disk keep working (client-node reads a
 *   kubeconfig's `token-file` only once).
 * - `applyToHTTPSOptions` has client-node's signature: the transport uses either.
 *
 * Caveats: the client-node fallback is loaded with a computed module name, so a bundle does not carry
 * it; a bundle that needs it must find `@kubernetes/client-node` in a `node_modules` beside or above it.
 */
import * as fs from 'fs';
import type * as https from 'https';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'js-yaml';
import { KubeConfigModule, requireEsm } from './client-node';

/** What the transport needs of a kubeconfig (client-node's `KubeConfig` has the same methods). */
export interface ConnectionConfig {
  getCurrentCluster(): { readonly server: string } | null;
  /** `exec` / `authProvider` set = credentials that can change while the process runs. */
  getCurrentUser(): { readonly exec?: unknown; readonly authProvider?: unknown } | null;
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

const SERVICEACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
/** client-go's and client-node's refresh period of a token file. */
const TOKEN_FILE_REFRESH_MS = 60_000;

/** The resolved cluster and user of one context. */
export interface LightKubeConfigSpec {
  readonly server: string;
  readonly caFile?: string;
  readonly caData?: string;
  readonly skipTLSVerify?: boolean;
  readonly tlsServerName?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly certFile?: string;
  readonly certData?: string;
  readonly keyFile?: string;
  readonly keyData?: string;
  readonly username?: string;
  readonly password?: string;
}

/** See module docs. */
export class LightKubeConfig implements ConnectionConfig {
  /**
   * The kubeconfig file's current context, or undefined when it needs client-node (see module docs).
   * Throws for a file that cannot be read or has no usable current context, as client-node does.
   */
  static fromFile(file: string): LightKubeConfig | undefined {
    const doc = yaml.load(fs.readFileSync(file, 'utf8')) as KubeconfigFile | undefined;
    const spec = specOf(doc ?? {}, path.dirname(file));
    return spec && new LightKubeConfig(spec);
  }

  /** The in-cluster ServiceAccount config (client-node's `loadFromCluster`), or undefined outside a pod. */
  static inCluster(dir = SERVICEACCOUNT_DIR, env: NodeJS.ProcessEnv = process.env): LightKubeConfig | undefined {
    const tokenFile = path.join(dir, 'token');
    if (!fs.existsSync(tokenFile)) return undefined;
    const host = env.KUBERNETES_SERVICE_HOST ?? '';
    const port = env.KUBERNETES_SERVICE_PORT ?? '';
    const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
    return new LightKubeConfig({
      server: `${scheme}://${net.isIPv6(host) ? `[${host}]` : host}:${port}`,
      caFile: path.join(dir, 'ca.crt'),
      tokenFile,
    });
  }

  private token: { readonly value: string; readonly readAt: number } | undefined;

  constructor(public readonly spec: LightKubeConfigSpec) {}

  getCurrentCluster(): { readonly server: string } {
    return { server: this.spec.server };
  }

  getCurrentUser(): { readonly authProvider?: unknown } {
    // A token file can change (projected ServiceAccount tokens rotate): the transport asks again for it.
    return this.spec.tokenFile && !this.spec.token ? { authProvider: { name: 'tokenFile' } } : {};
  }

  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const s = this.spec;
    // client-node's rule, kept: no credentials in clear text unless TLS checks were switched off on purpose.
    if (s.server.startsWith('http:') && !s.skipTLSVerify) {
      throw new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false');
    }
    if (s.skipTLSVerify) options.rejectUnauthorized = false;
    if (s.tlsServerName) options.servername = s.tlsServerName;
    const ca = fileOrData(s.caFile, s.caData);
    if (ca) options.ca = ca;
    const cert = fileOrData(s.certFile, s.certData);
    if (cert) options.cert = cert;
    const key = fileOrData(s.keyFile, s.keyData);
    if (key) options.key = key;
    const token = s.token ?? (s.tokenFile ? this.fileToken(s.tokenFile) : undefined);
    if (token) options.headers = { ...(options.headers ?? {}), Authorization: `Bearer ${token}` };
    if (s.username) options.auth = `${s.username}:${s.password}`;
  }

  private fileToken(file: string): string {
    const now = Date.now();
    if (!this.token || now - this.token.readAt > TOKEN_FILE_REFRESH_MS) {
      this.token = { value: fs.readFileSync(file, 'utf8'), readAt: now };
    }
    return this.token.value;
  }
}

/**
 * The connection of `loadFromDefault`'s config: a {@link LightKubeConfig} where it suffices, else
 * client-node's `KubeConfig` (see module docs; client-node reads `process.env` itself).
 */
export function loadDefaultConnection(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): ConnectionConfig {
  const files = (env.KUBECONFIG ?? '').split(path.delimiter).filter(Boolean);
  const defaultFile = path.join(home, '.kube', 'config');
  let light: LightKubeConfig | undefined;
  if (files.length === 1) light = LightKubeConfig.fromFile(files[0]);
  else if (!files.length && fs.existsSync(defaultFile)) light = LightKubeConfig.fromFile(defaultFile);
  else if (!files.length) light = LightKubeConfig.inCluster(SERVICEACCOUNT_DIR, env);
  return light ?? clientNodeKubeConfig();
}

/** client-node's KubeConfig from its default sources, loaded only now (see module docs). */
function clientNodeKubeConfig(): ConnectionConfig {
  // A computed module name: esbuild leaves it out of bundles (see module docs).
  const id = ['@kubernetes', 'client-node', 'dist', 'config.js'].join('/');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { KubeConfig } = requireEsm<KubeConfigModule>(() => require(id), id);
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return kc;
}

function fileOrData(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return fs.readFileSync(file);
  return data ? Buffer.from(data, 'base64') : undefined;
}

interface KubeconfigFile {
  readonly 'current-context'?: string;
  readonly contexts?: ReadonlyArray<{
    readonly name?: string;
    readonly context?: { readonly cluster?: string; readonly user?: string };
  }>;
  readonly clusters?: ReadonlyArray<{ readonly name?: string; readonly cluster?: Record<string, unknown> }>;
  readonly users?: ReadonlyArray<{ readonly name?: string; readonly user?: Record<string, unknown> }>;
}

/** Keys of a cluster and a user this module implements (others, e.g. `exec`, `proxy-url`, `as`: client-node). */
const CLUSTER_KEYS = new Set([
  'server',
  'certificate-authority',
  'certificate-authority-data',
  'insecure-skip-tls-verify',
  'tls-server-name',
  'extensions',
]);
const USER_KEYS = new Set([
  'token',
  'token-file',
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'username',
  'password',
  'extensions',
]);

function specOf(doc: KubeconfigFile, dir: string): LightKubeConfigSpec | undefined {
  const contextName = doc['current-context'];
  const context = doc.contexts?.find((c) => c.name === contextName)?.context;
  const cluster = doc.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  const user = doc.users?.find((u) => u.name === context?.user)?.user ?? {};
  // Anything unusual (no such context, a plugin, a proxy): client-node decides, errors included.
  if (!context || !cluster || typeof cluster.server !== 'string') return undefined;
  if (Object.keys(cluster).some((k) => !CLUSTER_KEYS.has(k)) || Object.keys(user).some((k) => !USER_KEYS.has(k))) {
    return undefined;
  }
  const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const abs = (v: unknown) => {
    const p = str(v);
    return p && path.resolve(dir, p);
  };
  return {
    server: cluster.server.replace(/\/$/, ''),
    caFile: abs(cluster['certificate-authority']),
    caData: str(cluster['certificate-authority-data']),
    skipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: str(cluster['tls-server-name']),
    token: str(user.token),
    // Re-read once a minute, as client-go re-reads a BearerTokenFile (client-node reads it once): a token
    // someone refreshes on disk (`cdk8s-operator run`, a sidecar) keeps working.
    tokenFile: str(user.token) ? undefined : abs(user['token-file']),
    certFile: abs(user['client-certificate']),
    certData: str(user['client-certificate-data']),
    keyFile: abs(user['client-key']),
    keyData: str(user['client-key-data']),
    username: str(user.username),
    password: str(user.password),
  };
}
