/**
 * `kubectl get … -o json` answered with one HTTPS GET instead of kubectl, for the suites' polling loops.
 *
 * Why: the suites poll the cluster every 0.5 to 2 s (`until`), and a kubectl process costs 55-70 ms of CPU before it
 * sends its request (Go's start-up, every API scheme registered): about 1,500 calls took 118 CPU-s of a CI run on two
 * cores. The GET is made on a worker thread (rest-get-worker.ts) and waited for synchronously, as the suites' loops
 * are: no process at all. Reads only: writes (apply, patch, delete) still go through kubectl, as users run them.
 *
 * What it answers: `get TYPE [NAME] [-n NS | -A] [-l SELECTOR] [--field-selector S]` or `get TYPE/NAME [-n NS]`,
 * with TYPE a plural, singular, short name, kind or `plural.group` of a served resource, as kubectl prints it with
 * `-o json` (a list as `kind: List` with each item's apiVersion and kind), and `get --raw PATH` ({@link RestGet.raw}).
 * Anything else (several types, other flags) returns undefined: the caller runs kubectl. A type not in the discovery
 * read so far makes it read discovery again (a CRD installed since).
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { load } from 'js-yaml';
import { createSyncFn } from 'synckit';
import type { WorkerReply } from './rest-get-worker';

interface Resource {
  readonly groupVersion: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

interface Access {
  readonly server: string;
  readonly ca: string;
  readonly token: string;
  readonly namespace: string;
}

/** The worker's GET, made synchronous; started on first use (one worker per process). */
let syncGet: ((url: string, caFile: string, token: string, timeoutMs: number) => WorkerReply) | undefined;
function httpsGet(): NonNullable<typeof syncGet> {
  return (syncGet ??= createSyncFn(join(__dirname, 'rest-get-worker.ts')));
}

export class RestGet {
  private access?: Access;
  private resources?: Map<string, Resource>;

  constructor(private readonly kubeconfig: string) {}

  /** Whether `get` finds the object (kubectl's `--ignore-not-found -o name`), or undefined as {@link get}. */
  exists(args: readonly string[]): boolean | undefined {
    try {
      const found = this.get(args);
      return found === undefined ? undefined : found.kind !== 'List' || found.items.length > 0;
    } catch (err) {
      if (/\(NotFound\)/.test((err as Error).message)) return false;
      throw err;
    }
  }

  /**
   * `kubectl get --raw PATH`'s output: the body of a GET of that path (a metrics page, a proxied service's API), or
   * an error as kubectl's for any status but 2xx.
   */
  raw(path: string): string {
    const reply = this.send(path);
    if (reply.code < 200 || reply.code > 299) throw new Error(`GET ${path}: HTTP ${reply.code}: ${reply.text}`);
    return reply.text;
  }

  /** The object or list kubectl would print, or undefined when these arguments are not a plain `get`. */
  get(args: readonly string[]): any {
    const parsed = parseGet(args);
    if (!parsed) return undefined;
    const resource = this.resource(parsed.type);
    if (!resource) return undefined;
    const access = this.auth();
    const namespace = parsed.allNamespaces ? undefined : (parsed.namespace ?? access.namespace);
    const base = resource.groupVersion.includes('/')
      ? `/apis/${resource.groupVersion}`
      : `/api/${resource.groupVersion}`;
    const scope = resource.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    const query = new URLSearchParams();
    if (parsed.selector) query.set('labelSelector', parsed.selector);
    if (parsed.fieldSelector) query.set('fieldSelector', parsed.fieldSelector);
    const name = parsed.name ? `/${encodeURIComponent(parsed.name)}` : '';
    const q = query.toString();
    const { code, body } = this.request(`${base}${scope}/${resource.plural}${name}${q ? `?${q}` : ''}`);
    if (code === 404 && parsed.name) {
      throw new Error(`Error from server (NotFound): ${resource.plural} "${parsed.name}" not found`);
    }
    if (code !== 200) throw new Error(`GET ${resource.plural}: HTTP ${code}: ${body?.message ?? ''}`);
    if (parsed.name) return body;
    // kubectl prints a list as a v1 List whose items carry their apiVersion and kind
    const items = (body.items ?? []).map((o: any) => ({
      apiVersion: resource.groupVersion,
      kind: resource.kind,
      ...o,
    }));
    return { apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion: '' } };
  }

  private request(path: string): { code: number; body: any } {
    const reply = this.send(path);
    let body: any;
    try {
      body = JSON.parse(reply.text);
    } catch {
      body = undefined;
    }
    return { code: reply.code, body };
  }

  private send(path: string): WorkerReply {
    const a = this.auth();
    try {
      return httpsGet()(`${a.server}${path}`, a.ca, a.token, 60_000);
    } catch (err) {
      throw new Error(`GET ${path} failed: ${(err as Error).message}`);
    }
  }

  private auth(): Access {
    if (this.access) return this.access;
    const config = load(readFileSync(this.kubeconfig, 'utf8')) as any;
    const context = config.contexts.find((c: any) => c.name === config['current-context']).context;
    const cluster = config.clusters.find((c: any) => c.name === context.cluster).cluster;
    const user = config.users.find((u: any) => u.name === context.user).user;
    if (!user.token || !cluster['certificate-authority']) throw new Error('rest-get: a token and a CA file are needed');
    this.access = {
      server: cluster.server,
      ca: cluster['certificate-authority'],
      token: user.token,
      namespace: context.namespace ?? 'default',
    };
    return this.access;
  }

  private resource(type: string): Resource | undefined {
    const key = type.toLowerCase();
    if (!this.resources?.has(key)) this.resources = this.discover();
    return this.resources.get(key);
  }

  /** Every served resource by each name kubectl accepts for it (preferred versions, as kubectl picks). */
  private discover(): Map<string, Resource> {
    const byName = new Map<string, Resource>();
    const groupVersions = [
      'v1',
      ...(this.request('/apis').body?.groups ?? []).map((g: any) => g.preferredVersion.groupVersion),
    ];
    for (const gv of groupVersions) {
      const list = this.request(gv === 'v1' ? '/api/v1' : `/apis/${gv}`).body;
      for (const r of list?.resources ?? []) {
        if (r.name.includes('/') || !r.verbs?.includes('get')) continue;
        const resource: Resource = { groupVersion: gv, plural: r.name, kind: r.kind, namespaced: r.namespaced };
        const group = gv.includes('/') ? gv.slice(0, gv.indexOf('/')) : '';
        const names = [r.name, r.singularName, r.kind, ...(r.shortNames ?? [])].filter(Boolean);
        if (group) names.push(`${r.name}.${group}`);
        // the core group first, as kubectl resolves `events` to v1 rather than events.k8s.io
        for (const n of names) if (!byName.has(n.toLowerCase())) byName.set(n.toLowerCase(), resource);
      }
    }
    return byName;
  }
}

export interface GetArgs {
  readonly type: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly allNamespaces: boolean;
  readonly selector?: string;
  readonly fieldSelector?: string;
}

/** `get TYPE [NAME] [flags]` with the flags above, or undefined. */
export function parseGet(args: readonly string[]): GetArgs | undefined {
  if (args[0] !== 'get') return undefined;
  const positional: string[] = [];
  let namespace: string | undefined;
  let allNamespaces = false;
  let selector: string | undefined;
  let fieldSelector: string | undefined;
  for (let i = 1; i < args.length; i++) {
    const a = args[i];
    const [flag, inline] =
      a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a];
    const value = () => inline ?? args[++i];
    if (flag === '-n' || flag === '--namespace') namespace = value();
    else if (flag === '-A' || flag === '--all-namespaces') allNamespaces = true;
    else if (flag === '-l' || flag === '--selector') selector = value();
    else if (flag === '--field-selector') fieldSelector = value();
    else if (a.startsWith('-')) return undefined;
    else positional.push(a);
  }
  // `TYPE/NAME` alone, as kubectl takes it
  const [type, name, ...more] =
    positional.length === 1 && /^[^/,]+\/[^/,]+$/.test(positional[0]) ? positional[0].split('/') : positional;
  if (!type || more.length || type.includes(',') || type.includes('/')) return undefined;
  return { type, name, namespace, allNamespaces, selector, fieldSelector };
}
