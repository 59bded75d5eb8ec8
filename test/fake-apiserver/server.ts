/** HTTP front end of the fake kube-apiserver: routing, discovery, list/watch, writes, faults, request log. */
import type { KubeConfig } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Socket } from 'node:net';
import { loadClientNode } from './client-node';
import { clone, nowTimestamp } from './json-util';
import { FaultRule, faultError } from './faults';
import { parseJsonBody, readBody, writeJson } from './http-io';
import { fieldLabels, listResource, selectedObjects } from './list';
import { validateListOptions } from './list-options';
import { managerFromUserAgent } from './managed-fields';
import { serveNonResource } from './non-resource';
import { patchResource } from './patch';
import { FieldValidation, Registry } from './registry';
import { ResourceCatalog, ResourceInfo, apiVersionOf } from './resources';
import { parseFieldSelector, parseLabelSelector } from './selectors';
import { accessReview } from './access-review';
import { ADMIN, ANONYMOUS, UserInfo, attributesOf, forbiddenFor, impersonatedUser, rbacAllows, serviceAccountUser, unauthorized } from './rbac';
import { decodeAccessReview, isKubernetesProtobuf } from './protobuf';
import { ApiError, methodNotAllowed, notFound, notFoundPath, unsupportedMediaType } from './status';
import { Store } from './store';
import { toTable, wantsTable } from './table';
import { FakeApiServer, FakeApiServerOptions, FaultMatch, Faults, RecordedRequest, Verb } from './types';
import { WatchControl, WatchStream } from './watch';
import { ServingCert, selfSignedCert } from './tls';
import { simulateWorkloads } from './workloads';

interface Route {
  res: ResourceInfo;
  namespace?: string;
  name?: string;
  subresource?: string;
}


const TOKEN = 'fake-apiserver-token';
/** Reachable without credentials even with rbac (system:public-info-viewer). */
const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/livez', '/version']);
/** kube-apiserver's request body limit (3 MiB). */
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export class FakeKubeApiServer implements FakeApiServer {
  private readonly store: Store;
  private readonly catalog = new ResourceCatalog();
  private readonly registry: Registry;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<WatchStream>();
  private readonly log: RecordedRequest[] = [];
  private readonly tokens = new Map<string, { namespace: string; name: string; uid: string }>();
  private readonly rules: FaultRule[] = [];
  private readonly delays: Array<{ match: FaultMatch; remaining: number; ms: number }> = [];
  private readonly control: WatchControl;
  private listenPort = 0;

  constructor(private readonly opts: FakeApiServerOptions = {}) {
    this.store = new Store(opts.watchCacheWindow ?? 1000, opts.initialResourceVersion ?? 1);
    this.registry = new Registry(this.store, this.catalog, !!opts.gc);
    this.control = { stalledUntil: 0, bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 1000 };
    const nsRes = this.catalog.find('', 'v1', 'namespaces')!;
    for (const name of INITIAL_NAMESPACES) this.registry.create(nsRes, undefined, { metadata: { name } }, { manager: 'kube-apiserver' });
    for (const crd of opts.crds ?? []) this.addCrd(crd);
    if (opts.simulateWorkloads) this.stopWorkloads = simulateWorkloads(this.store, this.registry, this.catalog, opts.workloadDelayMs ?? 50);
  }

  private stopWorkloads?: () => void;
  private servingCert?: ServingCert;

  // ------------------------------------------------------------------ lifecycle

  async listen(port = this.opts.port ?? 0): Promise<void> {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    if (this.opts.tls && !this.servingCert) this.servingCert = selfSignedCert();
    const server = this.servingCert ? createHttpsServer({ key: this.servingCert.key, cert: this.servingCert.cert }, handler) : createServer(handler);
    server.keepAliveTimeout = 5000;
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.listenPort = (server.address() as { port: number }).port;
  }

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `${this.opts.tls ? 'https' : 'http'}://127.0.0.1:${this.listenPort}`;
  }

  get adminToken(): string {
    return TOKEN;
  }

  get openWatches(): number {
    return this.watches.size;
  }

  get resourceVersion(): string {
    return String(this.store.currentRv);
  }

  get requests(): ReadonlyArray<RecordedRequest> {
    return this.log;
  }

  async close(): Promise<void> {
    this.stopWorkloads?.();
    await this.stop();
  }

  /** Stops serving (drops every connection) but keeps the state. */
  private async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const w of [...this.watches]) w.drop();
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async restart(opts: { downMs?: number } = {}): Promise<void> {
    const port = this.listenPort;
    await this.stop();
    if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
    for (let attempt = 0; ; attempt++) {
      try {
        await this.listen(port);
        return;
      } catch (e) {
        if (attempt > 50) throw e;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  compact(): void {
    this.store.compact();
  }

  readonly faults: Faults = {
    failNext: (match, status, o) => {
      this.rules.push({ match, remaining: match.count ?? 1, status, retryAfterSeconds: o?.retryAfterSeconds });
    },
    dropWatches: () => {
      for (const w of [...this.watches]) w.drop();
    },
    stallWatches: (ms) => {
      this.control.stalledUntil = Date.now() + ms;
    },
    delayNext: (match, ms) => {
      this.delays.push({ match, remaining: match.count ?? 1, ms });
    },
    clear: () => {
      this.rules.length = 0;
      this.delays.length = 0;
    },
  };

  // ------------------------------------------------------------------ client config

  kubeConfig(opts: { token?: string } = {}): KubeConfig {
    const k8s = loadClientNode();
    const kc = new k8s.KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'fake', token: opts.token ?? TOKEN }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace: 'default' }],
      currentContext: 'fake',
    });
    return kc;
  }

  writeKubeconfig(path: string, opts: { token?: string } = {}): void {
    const doc = {
      'apiVersion': 'v1',
      'kind': 'Config',
      'clusters': [{ name: 'fake', cluster: { 'server': this.url, 'insecure-skip-tls-verify': true } }],
      'users': [{ name: 'fake', user: { token: opts.token ?? TOKEN } }],
      'contexts': [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: 'default' } }],
      'current-context': 'fake',
      'preferences': {},
    };
    writeFileSync(path, JSON.stringify(doc, null, 2), { mode: 0o600 });
  }

  // ------------------------------------------------------------------ direct store access

  private resourceFor(apiVersion: string, kind: string): ResourceInfo {
    const res = this.catalog.byKind(apiVersion, kind);
    if (!res) throw new Error(`fake-apiserver: no resource for ${apiVersion} ${kind}`);
    return res;
  }

  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): any | undefined {
    return this.registry.tryGet(this.resourceFor(apiVersion, kind), namespace, name);
  }

  put(obj: any): any {
    const res = this.resourceFor(obj.apiVersion, obj.kind);
    const ns = res.namespaced ? obj.metadata?.namespace ?? 'default' : undefined;
    const current = this.registry.tryGet(res, ns, obj.metadata.name);
    if (!current) {
      const created = this.registry.create(res, ns, obj, { manager: 'fake-apiserver' }).object;
      if (obj.status === undefined) return created;
      return this.put({ ...created, status: obj.status });
    }
    // Like a controller writing both spec and status: keep server-owned metadata, take everything else.
    const next = clone(obj);
    next.metadata = { ...next.metadata, resourceVersion: current.metadata.resourceVersion };
    let result = this.registry.applyWrite(res, current, next, { manager: 'fake-apiserver' }).object;
    if (res.status && obj.status !== undefined) {
      result = this.registry.applyWrite(res, result, { ...result, status: obj.status }, { manager: 'fake-apiserver', subresource: 'status' }).object;
    }
    return result;
  }

  remove(apiVersion: string, kind: string, namespace: string | undefined, name: string): void {
    const res = this.resourceFor(apiVersion, kind);
    const current = this.registry.tryGet(res, namespace, name);
    if (!current) return;
    this.registry.removeNow(res, current);
  }

  addCrd(crd: object): void {
    const res = this.catalog.find('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
    const c: any = crd;
    const existing = this.registry.tryGet(res, undefined, c.metadata?.name);
    if (existing) this.registry.update(res, undefined, c.metadata.name, { ...c, metadata: { ...c.metadata, resourceVersion: existing.metadata.resourceVersion } }, { manager: 'fake-apiserver' });
    else this.registry.create(res, undefined, c, { manager: 'fake-apiserver' });
  }

  // ------------------------------------------------------------------ authentication

  /** Issues a bearer token for an existing ServiceAccount (what the TokenRequest API returns). */
  tokenFor(namespace: string, name: string): string {
    const sa = this.store.get('/serviceaccounts', `${namespace}/${name}`);
    if (!sa) throw new Error(`fake-apiserver: serviceaccount ${namespace}/${name} does not exist`);
    const token = `fake-sa.${Buffer.from(`${namespace}/${name}`).toString('base64url')}.${randomBytes(12).toString('hex')}`;
    this.tokens.set(token, { namespace, name, uid: sa.metadata.uid });
    return token;
  }

  private tokenRequest(namespace: string, name: string, body: any): any {
    const sa = this.store.get('/serviceaccounts', `${namespace}/${name}`);
    if (!sa) throw notFound(this.catalog.find('', 'v1', 'serviceaccounts')!, name);
    const expirationSeconds = body?.spec?.expirationSeconds ?? 3600;
    return {
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
      metadata: { name, namespace, creationTimestamp: nowTimestamp() },
      spec: { audiences: body?.spec?.audiences ?? ['https://kubernetes.default.svc.cluster.local'], expirationSeconds, boundObjectRef: body?.spec?.boundObjectRef ?? null },
      status: { token: this.tokenFor(namespace, name), expirationTimestamp: nowTimestamp(new Date(Date.now() + expirationSeconds * 1000)) },
    };
  }

  private authenticate(req: IncomingMessage): UserInfo {
    if (!this.opts.rbac) return ADMIN;
    const m = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (!m) return ANONYMOUS;
    const token = m[1].trim();
    let user: UserInfo;
    if (token === TOKEN) user = ADMIN;
    else {
      const sa = this.tokens.get(token);
      // like bound tokens: invalid once the ServiceAccount is gone (or was recreated)
      if (!sa || this.store.get('/serviceaccounts', `${sa.namespace}/${sa.name}`)?.metadata.uid !== sa.uid) throw unauthorized();
      user = serviceAccountUser(sa.namespace, sa.name);
    }
    const as = req.headers['impersonate-user'];
    if (typeof as === 'string' && as) {
      if (!user.admin) {
        throw new ApiError(403, 'Forbidden', `users "${as}" is forbidden: User "${user.name}" cannot impersonate resource "users" in API group "" at the cluster scope`, { name: as, kind: 'users' });
      }
      const groups = ([] as string[]).concat(req.headers['impersonate-group'] ?? []);
      user = impersonatedUser(as, groups);
    }
    return user;
  }

  // ------------------------------------------------------------------ HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const record: Partial<RecordedRequest> = { path: req.url ?? '/', userAgent: req.headers['user-agent'] };
    try {
      const raw = await readBody(req);
      if (raw.length > MAX_REQUEST_BYTES) {
        throw new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_REQUEST_BYTES}`);
      }
      const user = this.authenticate(req);
      Object.assign(record, { user: user.name });
      if (this.opts.rbac && user === ANONYMOUS && !PUBLIC_PATHS.has(url.pathname.replace(/\/+$/, ''))) {
        throw new ApiError(403, 'Forbidden', `forbidden: User "${user.name}" cannot ${(req.method ?? 'get').toLowerCase()} path "${url.pathname}"`, {});
      }
      if (serveNonResource(this.catalog, this.listenPort, req, res, url)) return;
      const route = this.route(url.pathname);
      const verb = verbOf(req.method ?? 'GET', route, url);
      Object.assign(record, {
        verb, resource: route.res.plural, group: route.res.group, namespace: route.namespace, name: route.name,
        subresource: route.subresource, contentType: req.headers['content-type'],
      });
      const attrs = attributesOf(verb, route.res, route.subresource, route.namespace, route.name);
      if (this.opts.rbac && !rbacAllows(this.store, user, attrs)) throw forbiddenFor(user, attrs);
      await this.injectFault(verb, route);
      await this.dispatch(req, res, url, route, verb, raw, record, user);
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(500, 'InternalError', `Internal error occurred: ${(e as Error).message}`, { causes: [{ reason: '', message: String((e as Error).message), field: '' }] });
      if (record.verb) this.log.push({ ...(record as RecordedRequest), code: err.code });
      if (!res.headersSent) writeJson(res, err.code, err.toStatus(), err.headers);
      else res.end();
    }
  }

  private route(pathname: string): Route {
    const segs = pathname.split('/').filter(Boolean);
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === 'api' && segs.length >= 2) {
      group = '';
      version = segs[1];
      rest = segs.slice(2);
    } else if (segs[0] === 'apis' && segs.length >= 3) {
      group = segs[1];
      version = segs[2];
      rest = segs.slice(3);
    } else throw notFoundPath();
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && ['status', 'finalize'].includes(rest[2]))) {
      namespace = rest[1];
      rest = rest.slice(2);
    }
    const [plural, name, subresource, ...extra] = rest;
    const res = plural ? this.catalog.find(group, version, plural) : undefined;
    if (!res || extra.length) throw notFoundPath();
    if (namespace !== undefined && !res.namespaced) throw notFoundPath();
    if (subresource && !((subresource === 'status' && res.status) || (subresource === 'scale' && res.scale) || (subresource === 'finalize' && res.plural === 'namespaces')
      || (subresource === 'token' && res.plural === 'serviceaccounts'))) {
      throw notFoundPath();
    }
    return { res, namespace, name, subresource };
  }

  private async injectFault(verb: Verb, route: Route): Promise<void> {
    const matches = (m: FaultMatch) => (!m.verb || m.verb === verb)
      && (!m.resource || m.resource === route.res.plural || m.resource === `${route.res.plural}/${route.subresource}`);
    const delay = this.delays.find((d) => d.remaining > 0 && matches(d.match));
    if (delay) {
      delay.remaining--;
      await new Promise((r) => setTimeout(r, delay.ms));
    }
    const rule = this.rules.find((r) => r.remaining > 0 && matches(r.match));
    if (!rule) return;
    rule.remaining--;
    throw faultError(rule, route.res, route.name);
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, url: URL, route: Route, verb: Verb, raw: Buffer, record: Partial<RecordedRequest>,
    user: UserInfo): Promise<void> {
    const body = raw.toString('utf8');
    if (isKubernetesProtobuf(req.headers['content-type']) && !route.res.createOnly) {
      throw unsupportedMediaType(['application/json', 'application/yaml']);
    }
    const q = url.searchParams;
    const { res: r, namespace, name, subresource } = route;
    const manager = q.get('fieldManager') ?? managerFromUserAgent(req.headers['user-agent']);
    const dryRun = q.getAll('dryRun').includes('All');
    const fieldValidation = (q.get('fieldValidation') ?? undefined) as FieldValidation | undefined;
    const done = (code: number, payload: any, warnings: string[] = []) => {
      this.log.push({ ...(record as RecordedRequest), code });
      const headers: Record<string, string | string[]> = {};
      const all = r.deprecationWarning ? [r.deprecationWarning, ...warnings] : warnings;
      if (all.length) headers.Warning = all.map((w) => `299 - ${JSON.stringify(w)}`);
      writeJson(res, code, payload, headers);
    };

    if (r.createOnly) {
      if (verb !== 'create') throw methodNotAllowed();
      const review = isKubernetesProtobuf(req.headers['content-type']) ? decodeAccessReview(raw) : parseJsonBody(body, r);
      return done(201, accessReview(this.store, r, review, user));
    }
    switch (verb) {
      case 'watch': {
        validateListOptions(q, true);
        const ns = r.namespaced ? namespace : undefined;
        const labels = parseLabelSelector(q.get('labelSelector') ?? undefined);
        const fields = name ? parseFieldSelector(`metadata.name=${name}`) : parseFieldSelector(q.get('fieldSelector') ?? undefined, fieldLabels(r));
        this.log.push({ ...(record as RecordedRequest), code: 200 });
        const timeout = q.get('timeoutSeconds');
        const w: WatchStream = new WatchStream(this.registry, res, {
          res: r, namespace: ns, labels, fields, resourceVersion: q.get('resourceVersion') ?? undefined,
          allowBookmarks: q.get('allowWatchBookmarks') === 'true', sendInitialEvents: q.get('sendInitialEvents') === 'true',
          timeoutSeconds: timeout ? Number(timeout) : undefined,
          transform: wantsTable(req.headers.accept)
            ? (o) => toTable(r, [o], { resourceVersion: o.metadata.resourceVersion }, q.get('includeObject') ?? undefined)
            : undefined,
        }, this.control, (closed) => this.watches.delete(closed));
        this.watches.add(w);
        if ((res as any).writableEnded) this.watches.delete(w);
        return;
      }
      case 'list':
        validateListOptions(q, false);
        return done(200, listResource(this.registry, this.store, r, namespace, q, req.headers.accept));
      case 'get': {
        if (subresource === 'scale') return done(200, this.registry.getScale(r, namespace, name!));
        const obj = this.registry.get(r, namespace, name!);
        if (wantsTable(req.headers.accept)) {
          return done(200, toTable(r, [obj], { resourceVersion: obj.metadata.resourceVersion }, q.get('includeObject') ?? undefined));
        }
        return done(200, obj);
      }
      case 'create': {
        if (subresource === 'token') return done(201, this.tokenRequest(namespace!, name!, parseJsonBody(body || '{}', r)));
        const result = this.registry.create(r, namespace, parseJsonBody(body, r), { manager, dryRun, fieldValidation });
        return done(201, result.object, result.warnings);
      }
      case 'update': {
        const parsed = parseJsonBody(body, r);
        if (subresource === 'scale') return done(200, this.registry.updateScale(r, namespace, name!, parsed, { manager, dryRun }).object);
        const result = this.registry.update(r, namespace, name!, parsed, { manager, dryRun, fieldValidation, subresource });
        return done(200, result.object, result.warnings);
      }
      case 'patch': {
        const result = patchResource(this.registry, r, namespace, name!, subresource, req.headers['content-type'], body, q, { manager, dryRun, fieldValidation });
        return done(result.created ? 201 : 200, result.object, result.warnings);
      }
      case 'delete': {
        const opts = body ? parseJsonBody(body, r) : {};
        const policy = q.get('propagationPolicy') ?? opts.propagationPolicy ?? (q.get('orphanDependents') === 'true' || opts.orphanDependents === true ? 'Orphan' : undefined);
        return done(200, this.registry.delete(r, namespace, name!, { propagationPolicy: policy, preconditions: opts.preconditions, dryRun }));
      }
      case 'deletecollection': {
        const opts = body ? parseJsonBody(body, r) : {};
        const items = selectedObjects(this.registry, r, namespace, q);
        const deleted: any[] = [];
        for (const o of items) {
          const out = this.registry.delete(r, o.metadata.namespace, o.metadata.name, { propagationPolicy: q.get('propagationPolicy') ?? opts.propagationPolicy, dryRun });
          deleted.push(out.kind === 'Status' ? o : out);
        }
        return done(200, { apiVersion: apiVersionOf(r), kind: r.listKind, metadata: { resourceVersion: String(this.store.currentRv) }, items: deleted });
      }
      default:
        throw methodNotAllowed();
    }
  }

}

function verbOf(method: string, route: Route, url: URL): Verb {
  const watch = url.searchParams.get('watch');
  switch (method) {
    case 'GET':
      if (watch === 'true' || watch === '1') return 'watch';
      return route.name ? 'get' : 'list';
    case 'POST':
      if (route.name && route.subresource !== 'token') throw methodNotAllowed();
      return 'create';
    case 'PUT':
      if (!route.name) throw methodNotAllowed();
      return 'update';
    case 'PATCH':
      if (!route.name) throw methodNotAllowed();
      return 'patch';
    case 'DELETE':
      return route.name ? 'delete' : 'deletecollection';
    default:
      throw methodNotAllowed();
  }
}

/** Starts a fake kube-apiserver on 127.0.0.1 (random port unless opts.port). */
export async function startFakeApiServer(opts: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const server = new FakeKubeApiServer(opts);
  await server.listen();
  return server;
}
