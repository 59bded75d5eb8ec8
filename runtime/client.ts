/**
 * A small Kubernetes REST client: the only way the runtime talks to the apiserver.
 *
 * Expected flow: controllers get a {@link KubeClient} (the interface) from the manager; the default
 * implementation {@link RestClient} builds URLs from {@link ResourceRef}s, sends them through a
 * {@link Transport} (a client-node KubeConfig by default) and decodes `Status` errors into
 * {@link ApiError}. Tests inject their own `KubeClient` or `Transport`.
 *
 * Guarantees:
 * - Every PATCH states its content type: `merge` → `application/merge-patch+json`, `json` →
 *   `application/json-patch+json`, `apply` → `application/apply-patch+yaml` with `fieldManager` and
 *   `force` (client-node's generated `patch*` silently default to json-patch; custom resources
 *   reject strategic merge with 415, so we never send it).
 * - `list` pages with `limit=500` and `continue`; a 410 on a continue token restarts the list.
 * - Retries: 429 always (honouring `Retry-After`), 5xx and connection errors for idempotent verbs
 *   with exponential backoff, 409 Conflict only for PATCHes without a resourceVersion precondition
 *   (they are re-evaluated against the current object server-side). A PUT with a stale
 *   resourceVersion is never retried here: the caller must re-read (see {@link retryOnConflict}).
 * - Each attempt is counted in `rest_client_requests_total{code,method,host}` and timed in
 *   `rest_client_request_duration_seconds`.
 *
 * Caveats: `watch` is not retried here; the watcher owns reconnects. Plurals come from the ref,
 * from earlier refs of the same kind, from a table of built-in kinds, else from discovery (cached
 * per apiVersion for the client's lifetime).
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { sleep } from './backoff';
import { ApiError, isConflict, KubeStatus } from './errors';
import type { ConnectionConfig } from './kubeconfig';
import { Logger, silentLogger } from './log';
import { RuntimeMetrics } from './metrics';
import { KubeObject, parseApiVersion, ResourceRef, WELL_KNOWN_PLURALS } from './resource';
import { KubeConfigTransport, Transport, TransportRequest } from './transport';

/** A JSON-Patch (RFC 6902) operation. */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace' | 'test' | 'move' | 'copy';
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

/** A patch with its explicit content type. */
export type Patch =
  | { readonly type: 'merge'; readonly body: object }
  | { readonly type: 'json'; readonly ops: readonly JsonPatchOperation[] }
  | { readonly type: 'apply'; readonly body: KubeObject };

/** Options for list and watch. */
export interface ListOptions {
  /** Namespace; omitted = all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * The apiserver's shard selector (Kubernetes 1.36+, alpha gate `ShardedListAndWatch`), e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`; a server without it ignores it
   * (see {@link ListResult.shardSelector}).
   * @default - none
   */
  readonly shardSelector?: string;
  /** Page size. @default 500 */
  readonly limit?: number;
  /**
   * `resourceVersion` of the list (on its first page): `'0'` lets the apiserver answer from its watch
   * cache, in one response, without reading etcd (what client-go's reflector asks for on its first list).
   * @default - none: a consistent read, paged
   */
  readonly resourceVersion?: string;
  /**
   * Only each object's `metadata` (the apiserver's `PartialObjectMetadata`, as controller-runtime's
   * metadata-only watches ask for it); items keep the kind's apiVersion and kind.
   * @default false
   */
  readonly metadataOnly?: boolean;
  /**
   * Keeps only the items it accepts, page by page (a shard's share: the others never accumulate in memory).
   * @default - every item
   */
  readonly keep?: (obj: KubeObject) => boolean;
}

/** Accept headers of metadata-only lists and watches (JSON as PartialObjectMetadata, JSON as the fallback). */
const METADATA_ONLY_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const METADATA_ONLY_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json';

/** A complete (all pages) list. */
export interface ListResult {
  readonly items: KubeObject[];
  /** The list's resourceVersion, to start a watch from. */
  readonly resourceVersion: string;
  /**
   * The shard selector the apiserver applied (`metadata.shardInfo.selector`, echoed only by a server that
   * filtered the list by it; not echoed on metadata-only lists); undefined when it did not.
   */
  readonly shardSelector?: string;
}

/** One page of a list. */
export interface ListPage extends ListResult {
  /** Token of the next page; undefined on the last. */
  readonly continue?: string;
}

/** Options of a watch request. */
export interface WatchOptions extends ListOptions {
  readonly resourceVersion: string;
  /** @default true */
  readonly allowWatchBookmarks?: boolean;
  /** Server-side timeout. */
  readonly timeoutSeconds?: number;
}

/** Watch event types as sent by the apiserver. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One watch event (the `object` of an ERROR event is a `Status`). */
export interface WatchEvent {
  readonly type: WatchEventType;
  readonly object: KubeObject;
}

/** An open watch. */
export interface WatchStream {
  /** Events until the server ends the stream or {@link abort} is called. */
  readonly events: AsyncIterable<WatchEvent>;
  abort(): void;
}

/** Options of writes. */
export interface WriteOptions {
  /** Field manager recorded in managedFields. */
  readonly fieldManager?: string;
  /** Server-side dry run. */
  readonly dryRun?: boolean;
}

/** Options of a patch. */
export interface PatchOptions extends WriteOptions {
  /** Server-side apply: take ownership of conflicting fields. @default true for apply patches */
  readonly force?: boolean;
  /** Patch a subresource, e.g. `status`. */
  readonly subresource?: string;
}

/** Options of a delete. */
export interface DeleteOptions {
  readonly propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** Seconds the kubelet gives a pod's containers to stop before SIGKILL. @default - the pod's terminationGracePeriodSeconds */
  readonly gracePeriodSeconds?: number;
}

/** The operations the runtime needs from the apiserver. */
export interface KubeClient {
  /** Lists all pages. */
  list(ref: ResourceRef, options?: ListOptions): Promise<ListResult>;
  /** Opens a watch; rejects with {@link ApiError} (e.g. 410) if the server refuses it. */
  watch(ref: ResourceRef, options: WatchOptions): Promise<WatchStream>;
  get(ref: ResourceRef, name: string, namespace?: string): Promise<KubeObject>;
  create(obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** PUT with the object's resourceVersion (optimistic concurrency). */
  replace(obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  /** PUT to the `/status` subresource. */
  replaceStatus(obj: KubeObject, options?: WriteOptions): Promise<KubeObject>;
  patch(
    ref: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Patch,
    options?: PatchOptions,
  ): Promise<KubeObject>;
  delete(ref: ResourceRef, name: string, namespace?: string, options?: DeleteOptions): Promise<void>;
}

/** Options of {@link RestClient}. */
export interface RestClientOptions {
  /** HTTP transport. */
  readonly transport: Transport;
  /** @default - a private registry */
  readonly metrics?: RuntimeMetrics;
  /** @default - silent */
  readonly logger?: Logger;
  /** Retries for 5xx / connection errors. @default 5 */
  readonly maxRetries?: number;
  /** Retries for 429. @default 10 */
  readonly maxThrottleRetries?: number;
  /** First backoff step for 5xx / 409 retries. @default 200 */
  readonly retryBaseMs?: number;
  /** Largest backoff step and largest honoured Retry-After. @default 30000 */
  readonly retryMaxMs?: number;
  /** Client-side timeout of a non-watch request. @default 30000 */
  readonly requestTimeoutMs?: number;
  /** Page size of lists. @default 500 */
  readonly pageSize?: number;
}

const CONTENT_TYPES: Record<Patch['type'], string> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
};

/** Network errors where the request never reached the server. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const NETWORK_CODES = new Set([...NOT_SENT_CODES, 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET']);

function refOf(obj: KubeObject): ResourceRef {
  if (!obj.apiVersion || !obj.kind) {
    throw new Error(
      `object ${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''} must have apiVersion and kind`,
    );
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** Kubernetes REST client over a {@link Transport}, with retries and metrics. */
export class RestClient implements KubeClient {
  /** A client for a client-node KubeConfig (or the runtime's light one, see kubeconfig.ts). */
  static fromKubeConfig(
    kubeConfig: KubeConfig | ConnectionConfig,
    options: Omit<RestClientOptions, 'transport'> = {},
  ): RestClient {
    return new RestClient({ ...options, transport: new KubeConfigTransport(kubeConfig) });
  }

  private readonly transport: Transport;
  private readonly metrics: RuntimeMetrics;
  private readonly logger: Logger;
  private readonly discovery = new Map<string, Promise<Map<string, string>>>();
  private readonly learned = new Map<string, string>();
  /** Aborted by {@link close}: pending retry waits end and no further retry is made. */
  private readonly closing = new AbortController();

  constructor(private readonly options: RestClientOptions) {
    this.transport = options.transport;
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.logger = options.logger ?? silentLogger;
  }

  /** Releases connections. */
  close(): void {
    this.closing.abort();
    this.transport.close();
  }

  async list(ref: ResourceRef, options: ListOptions = {}): Promise<ListResult> {
    const base = await this.collectionPath(ref, options.namespace);
    const limit = options.limit ?? this.options.pageSize ?? 500;
    for (let attempt = 0; ; attempt++) {
      const items: KubeObject[] = [];
      let resourceVersion = '';
      let cont: string | undefined;
      let shardSelector: string | undefined;
      try {
        do {
          const page = (await this.send({
            method: 'GET',
            // The apiserver refuses a resourceVersion together with a continue token: only the first page has it.
            path:
              base +
              query({
                limit,
                continue: cont,
                resourceVersion: cont ? undefined : options.resourceVersion,
                labelSelector: options.labelSelector,
                fieldSelector: options.fieldSelector,
                shardSelector: options.shardSelector,
              }),
            headers: options.metadataOnly ? { Accept: METADATA_ONLY_LIST } : undefined,
          })) as {
            items?: KubeObject[];
            metadata?: { resourceVersion?: string; continue?: string; shardInfo?: { selector?: string } };
          };
          if (!cont) shardSelector = page.metadata?.shardInfo?.selector;
          // List items carry no apiVersion/kind (metadata-only ones carry PartialObjectMetadata's): set the
          // kind's on the parsed object itself, not on a copy (a second object per item until the copy is garbage).
          for (const item of page.items ?? []) {
            item.apiVersion = ref.apiVersion;
            item.kind = ref.kind;
            if (!options.keep || options.keep(item)) items.push(item);
          }
          if (!resourceVersion) resourceVersion = page.metadata?.resourceVersion ?? '';
          cont = page.metadata?.continue || undefined;
        } while (cont);
        return { items, resourceVersion, shardSelector };
      } catch (err) {
        // The continue token expired (compaction): start the list over, as client-go's pager does.
        if (err instanceof ApiError && err.code === 410 && cont && attempt < 3) continue;
        throw err;
      }
    }
  }

  /**
   * One page of a list (no retry of an expired `continue` token: the caller decides, e.g. a storage
   * migration restarting its pass). `continue` of the result is undefined on the last page.
   */
  async listPage(ref: ResourceRef, options: ListOptions & { readonly continue?: string } = {}): Promise<ListPage> {
    const base = await this.collectionPath(ref, options.namespace);
    const page = (await this.send({
      method: 'GET',
      path:
        base +
        query({
          limit: options.limit ?? this.options.pageSize ?? 500,
          continue: options.continue,
          labelSelector: options.labelSelector,
          fieldSelector: options.fieldSelector,
          shardSelector: options.shardSelector,
        }),
    })) as {
      items?: KubeObject[];
      metadata?: { resourceVersion?: string; continue?: string; shardInfo?: { selector?: string } };
    };
    return {
      items: (page.items ?? []).map((item) => ({ apiVersion: ref.apiVersion, kind: ref.kind, ...item })),
      resourceVersion: page.metadata?.resourceVersion ?? '',
      continue: page.metadata?.continue || undefined,
      shardSelector: page.metadata?.shardInfo?.selector,
    };
  }

  async watch(ref: ResourceRef, options: WatchOptions): Promise<WatchStream> {
    const base = await this.collectionPath(ref, options.namespace);
    const path =
      base +
      query({
        watch: 1,
        resourceVersion: options.resourceVersion,
        allowWatchBookmarks: options.allowWatchBookmarks ?? true,
        timeoutSeconds: options.timeoutSeconds,
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
        shardSelector: options.shardSelector,
      });
    const started = Date.now();
    let stream;
    try {
      stream = await this.transport.stream({
        method: 'GET',
        path,
        headers: { Accept: options.metadataOnly ? METADATA_ONLY_WATCH : 'application/json' },
      });
    } catch (err) {
      this.observe('GET', '<error>', started);
      throw err;
    }
    this.observe('GET', String(stream.status), started);
    if (stream.status !== 200) {
      let body = '';
      for await (const line of stream.lines) body += line;
      stream.abort();
      throw this.toApiError('GET', path, stream.status, body, stream.headers['retry-after']);
    }
    const lines = stream.lines;
    async function* events(): AsyncIterable<WatchEvent> {
      for await (const line of lines) {
        let parsed: WatchEvent;
        try {
          parsed = JSON.parse(line) as WatchEvent;
        } catch {
          throw new ApiError(500, 'GET', path, {
            reason: 'InvalidWatchEvent',
            message: `undecodable watch line: ${line.slice(0, 200)}`,
          });
        }
        yield parsed;
      }
    }
    return { events: events(), abort: () => stream.abort() };
  }

  async get(ref: ResourceRef, name: string, namespace?: string): Promise<KubeObject> {
    return this.send({ method: 'GET', path: await this.objectPath(ref, namespace, name) }) as Promise<KubeObject>;
  }

  async create(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const path = (await this.collectionPath(refOf(obj), obj.metadata?.namespace)) + this.writeQuery(options);
    return this.send(
      { method: 'POST', path, body: JSON.stringify(obj), headers: { 'Content-Type': 'application/json' } },
      { idempotent: !!obj.metadata?.name },
    ) as Promise<KubeObject>;
  }

  async replace(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.put(obj, undefined, options);
  }

  async replaceStatus(obj: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    return this.put(obj, 'status', options);
  }

  async patch(
    ref: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Patch,
    options: PatchOptions = {},
  ): Promise<KubeObject> {
    let path = await this.objectPath(ref, namespace, name);
    if (options.subresource) path += `/${options.subresource}`;
    const isApply = patch.type === 'apply';
    if (isApply && !options.fieldManager) {
      throw new Error(`server-side apply of ${namespace ?? ''}/${name} needs a fieldManager`);
    }
    path += query({
      fieldManager: options.fieldManager,
      force: isApply ? (options.force ?? true) : undefined,
      dryRun: options.dryRun ? 'All' : undefined,
    });
    const body = JSON.stringify(patch.type === 'json' ? patch.ops : patch.body);
    // A patch without a resourceVersion precondition is re-evaluated by the server, so a 409 can be retried.
    const hasPrecondition = body.includes('"resourceVersion"');
    return this.send(
      { method: 'PATCH', path, body, headers: { 'Content-Type': CONTENT_TYPES[patch.type] } },
      { idempotent: true, retryConflict: !hasPrecondition },
    ) as Promise<KubeObject>;
  }

  async delete(ref: ResourceRef, name: string, namespace?: string, options: DeleteOptions = {}): Promise<void> {
    const path = await this.objectPath(ref, namespace, name);
    const body = JSON.stringify({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: options.propagationPolicy,
      preconditions: options.preconditions,
      gracePeriodSeconds: options.gracePeriodSeconds,
    });
    await this.send(
      { method: 'DELETE', path, body, headers: { 'Content-Type': 'application/json' } },
      { idempotent: true },
    );
  }

  /** The URL path of a collection (`/apis/apps/v1/namespaces/ns/deployments`). */
  async collectionPath(ref: ResourceRef, namespace?: string): Promise<string> {
    const { group, version } = parseApiVersion(ref.apiVersion);
    const root = group ? `/apis/${group}/${version}` : `/api/${version}`;
    const plural = await this.pluralOf(ref);
    return namespace ? `${root}/namespaces/${encodeURIComponent(namespace)}/${plural}` : `${root}/${plural}`;
  }

  private async objectPath(ref: ResourceRef, namespace: string | undefined, name: string): Promise<string> {
    if (!name) throw new Error(`${ref.kind} name must not be empty`);
    return `${await this.collectionPath(ref, namespace)}/${encodeURIComponent(name)}`;
  }

  private writeQuery(options: WriteOptions): string {
    return query({ fieldManager: options.fieldManager, dryRun: options.dryRun ? 'All' : undefined });
  }

  private async put(obj: KubeObject, subresource: string | undefined, options: WriteOptions): Promise<KubeObject> {
    const name = obj.metadata?.name;
    if (!name) throw new Error(`cannot replace a ${obj.kind} without metadata.name`);
    let path = await this.objectPath(refOf(obj), obj.metadata?.namespace, name);
    if (subresource) path += `/${subresource}`;
    path += this.writeQuery(options);
    return this.send(
      { method: 'PUT', path, body: JSON.stringify(obj), headers: { 'Content-Type': 'application/json' } },
      { idempotent: true },
    ) as Promise<KubeObject>;
  }

  private async pluralOf(ref: ResourceRef): Promise<string> {
    const id = `${ref.apiVersion}/${ref.kind}`;
    if (ref.plural) {
      // Remember explicit plurals, so later refs built from objects (apiVersion + kind) resolve too.
      this.learned.set(id, ref.plural);
      return ref.plural;
    }
    const known = WELL_KNOWN_PLURALS[id] ?? this.learned.get(id);
    if (known) return known;
    let table = this.discovery.get(ref.apiVersion);
    if (!table) {
      table = this.discover(ref.apiVersion);
      this.discovery.set(ref.apiVersion, table);
      table.catch(() => this.discovery.delete(ref.apiVersion));
    }
    const plural = (await table).get(ref.kind);
    if (!plural) throw new Error(`kind ${ref.kind} is not served by ${ref.apiVersion}`);
    return plural;
  }

  private async discover(apiVersion: string): Promise<Map<string, string>> {
    const { group, version } = parseApiVersion(apiVersion);
    const list = (await this.send({
      method: 'GET',
      path: group ? `/apis/${group}/${version}` : `/api/${version}`,
    })) as { resources?: Array<{ name: string; kind: string }> };
    const table = new Map<string, string>();
    for (const r of list.resources ?? []) if (!r.name.includes('/')) table.set(r.kind, r.name);
    return table;
  }

  private observe(method: string, code: string, startedMs: number): void {
    const host = this.transport.host;
    this.metrics.restRequests.inc({ code, method, host });
    this.metrics.restRequestDuration.observe({ verb: method, host }, (Date.now() - startedMs) / 1000);
  }

  private toApiError(
    method: string,
    path: string,
    status: number,
    body: string,
    retryAfter: string | undefined,
  ): ApiError {
    let decoded: KubeStatus | undefined;
    try {
      decoded = JSON.parse(body) as KubeStatus;
    } catch {
      decoded = { message: body.slice(0, 500) };
    }
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined;
    return new ApiError(status, method, path, decoded, seconds);
  }

  /** Sends one request with the retry policy described in the module docs. */
  private async send(
    req: TransportRequest,
    policy: { idempotent?: boolean; retryConflict?: boolean } = {},
  ): Promise<unknown> {
    const idempotent = req.method === 'GET' || policy.idempotent === true;
    const maxRetries = this.options.maxRetries ?? 5;
    const maxThrottle = this.options.maxThrottleRetries ?? 10;
    const base = this.options.retryBaseMs ?? 200;
    const cap = this.options.retryMaxMs ?? 30_000;
    let retries = 0;
    let throttles = 0;
    const backoff = () => Math.min(cap, base * 2 ** retries) * (0.5 + Math.random() / 2);
    for (;;) {
      const started = Date.now();
      let failure: Error;
      let delayMs: number | undefined;
      let res;
      try {
        res = await this.transport.request({
          ...req,
          timeoutMs: req.timeoutMs ?? this.options.requestTimeoutMs ?? 30_000,
        });
      } catch (err) {
        // Network failure: no HTTP status.
        this.observe(req.method, '<error>', started);
        const code = (err as { code?: string }).code ?? '';
        const message = (err as Error).message ?? '';
        const retryable =
          NOT_SENT_CODES.has(code) ||
          (idempotent && (NETWORK_CODES.has(code) || /timeout|socket hang up/.test(message)));
        if (!retryable || retries >= maxRetries) throw err;
        delayMs = backoff();
        retries++;
        failure = err as Error;
      }
      if (res) {
        this.observe(req.method, String(res.status), started);
        if (res.status >= 200 && res.status < 300) return res.body ? JSON.parse(res.body) : {};
        const err = this.toApiError(req.method, req.path, res.status, res.body, res.headers['retry-after']);
        const retryAfterMs =
          err.retryAfterSeconds !== undefined ? Math.min(cap, err.retryAfterSeconds * 1000) : undefined;
        if (err.code === 429 && throttles < maxThrottle) {
          throttles++;
          delayMs = retryAfterMs ?? backoff();
        } else if (err.code >= 500 && idempotent && retries < maxRetries) {
          delayMs = retryAfterMs ?? backoff();
          retries++;
        } else if (isConflict(err) && policy.retryConflict && retries < maxRetries) {
          delayMs = backoff();
          retries++;
        } else {
          throw err;
        }
        failure = err;
      }
      if (this.closing.signal.aborted) throw failure!;
      this.logger.debug('retrying request', {
        method: req.method,
        path: req.path,
        delayMs: Math.round(delayMs!),
        error: failure!,
      });
      await sleep(delayMs!, this.closing.signal);
      if (this.closing.signal.aborted) throw failure!;
    }
  }
}

/**
 * Runs a read-modify-write function again when it fails with 409 Conflict (client-go's
 * `RetryOnConflict`): `fn` must re-read the object each time.
 */
export async function retryOnConflict<T>(fn: () => Promise<T>, attempts = 5, baseMs = 10): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (!isConflict(err) || i + 1 >= attempts) throw err;
      await sleep(baseMs * 2 ** i);
    }
  }
}
