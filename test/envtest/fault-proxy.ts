/**
 * Fault injection in front of a real kube-apiserver: a loopback HTTP proxy that forwards every request
 * unchanged (the client's own bearer token included) and, when a test asks, answers instead of the apiserver
 * (429 with Retry-After, 409, 5xx), delays a request, drops or stalls open watches. It never decides what the
 * apiserver would say: everything else is the real apiserver's answer. It logs each request (verb, resource,
 * the code the client got) so a test can count a controller's writes.
 */
import { writeFileSync } from 'node:fs';
import { IncomingMessage, Server, ServerResponse, createServer, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Socket } from 'node:net';
import type { KubeConfig } from '@kubernetes/client-node';
import { loadClientNode } from '../../runtime/client-node';
import type { ControlPlane, Identity } from '../../runtime/envtest';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ProxiedRequest {
  readonly method: string;
  readonly path: string;
  readonly verb: Verb;
  readonly resource: string;
  readonly subresource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The status code the client got (from the apiserver, or injected). */
  code: number;
  readonly injected: boolean;
}

export interface FaultMatch {
  readonly verb?: Verb;
  readonly resource?: string;
  readonly subresource?: string;
  /** How many matching requests. @default 1 */
  readonly count?: number;
}

interface Rule {
  readonly match: FaultMatch;
  remaining: number;
  readonly code?: number;
  readonly retryAfterSeconds?: number;
  readonly delayMs?: number;
  /** Held until this settles, then delayed `delayMs`. */
  readonly notBefore?: Promise<unknown>;
}

/** Verb and resource of a Kubernetes API path, as the apiserver's RequestInfoFactory derives them. */
export function requestInfo(method: string, url: string): Omit<ProxiedRequest, 'code' | 'injected'> {
  const u = new URL(url, 'http://x');
  const parts = u.pathname.split('/').filter(Boolean);
  // /api/v1/... or /apis/group/version/...
  let rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource = '', name, subresource] = rest;
  const watch = u.searchParams.get('watch') === 'true' || u.searchParams.get('watch') === '1';
  const verbs: Record<string, Verb> = { POST: 'create', PUT: 'update', PATCH: 'patch' };
  let verb: Verb;
  if (method === 'GET') verb = watch ? 'watch' : name ? 'get' : 'list';
  else if (method === 'DELETE') verb = name ? 'delete' : 'deletecollection';
  else verb = verbs[method] ?? 'get';
  return { method, path: `${u.pathname}${u.search}`, verb, resource, subresource, namespace, name };
}

function matches(m: FaultMatch, r: Omit<ProxiedRequest, 'code' | 'injected'>): boolean {
  return (
    (!m.verb || m.verb === r.verb) &&
    (!m.resource || m.resource === r.resource) &&
    (m.subresource === undefined || m.subresource === (r.subresource ?? ''))
  );
}

const REASONS: Record<number, string> = {
  409: 'Conflict',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

export class FaultProxy {
  static async start(plane: ControlPlane): Promise<FaultProxy> {
    const proxy = new FaultProxy(plane);
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  /** Every request that went through, in order. */
  readonly requests: ProxiedRequest[] = [];
  private readonly rules: Rule[] = [];
  private readonly watches = new Set<{
    req: IncomingMessage;
    res: ServerResponse;
    upstream: IncomingMessage;
    stalledUntil: number;
  }>();
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(private readonly plane: ControlPlane) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** http://127.0.0.1:<port> */
  get url(): string {
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  /** A KubeConfig that reaches the apiserver through this proxy as `identity` (the admin's by default). */
  kubeConfig(identity: Identity = this.plane.admin): KubeConfig {
    const kc = new (loadClientNode().KubeConfig)();
    kc.loadFromString(JSON.stringify(this.kubeconfigDocument(identity)));
    return kc;
  }

  /** The same as a file, for a controller process. */
  writeKubeconfig(path: string, identity: Identity = this.plane.admin): void {
    writeFileSync(path, JSON.stringify(this.kubeconfigDocument(identity)), { mode: 0o600 });
  }

  private kubeconfigDocument(identity: Identity): object {
    return {
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'proxy',
      // plain HTTP on loopback: client-node allows it only with insecure-skip-tls-verify; the proxy verifies the apiserver
      clusters: [{ name: 'proxy', cluster: { server: this.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: identity.user, user: { token: identity.token } }],
      contexts: [
        {
          name: 'proxy',
          context: { cluster: 'proxy', user: identity.user, namespace: identity.namespace ?? 'default' },
        },
      ],
    };
  }

  /** The next `count` matching requests get `code` (a Status like the apiserver's; 429 with Retry-After). */
  failNext(match: FaultMatch, code: number, opts: { retryAfterSeconds?: number } = {}): void {
    this.rules.push({ match, remaining: match.count ?? 1, code, retryAfterSeconds: opts.retryAfterSeconds });
  }

  /**
   * The next `count` matching requests are forwarded `ms` late; with `notBefore`, `ms` after it settled (or after they
   * came, if later), so that they are certainly still on their way when the test's next step happens, however slow
   * the host.
   */
  delayNext(match: FaultMatch, ms: number, opts: { notBefore?: Promise<unknown> } = {}): void {
    this.rules.push({ match, remaining: match.count ?? 1, delayMs: ms, notBefore: opts.notBefore });
  }

  /** Forget every pending fault. */
  clear(): void {
    this.rules.splice(0);
    for (const w of this.watches) w.stalledUntil = 0;
  }

  /** Cuts every open watch (the client sees the connection end mid-stream). */
  dropWatches(): number {
    const n = this.watches.size;
    for (const w of [...this.watches]) {
      w.upstream.destroy();
      w.res.destroy();
    }
    this.watches.clear();
    return n;
  }

  /** The watches open now stay connected but deliver nothing for `ms` (events are held, then delivered); new watches are not affected. */
  stallWatches(ms: number): void {
    for (const w of this.watches) w.stalledUntil = Date.now() + ms;
  }

  get openWatches(): number {
    return this.watches.size;
  }

  async close(): Promise<void> {
    this.dropWatches();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const info = requestInfo(req.method ?? 'GET', req.url ?? '/');
    const isResource = /^\/apis?\//.test(info.path) && info.resource !== '';
    const entry: ProxiedRequest = { ...info, code: 0, injected: false };
    if (isResource) this.requests.push(entry);
    const rule = isResource ? this.rules.find((r) => r.remaining > 0 && matches(r.match, info)) : undefined;
    if (rule) rule.remaining--;
    if (rule?.notBefore) await rule.notBefore.catch(() => undefined);
    if (rule?.delayMs) await new Promise((r) => setTimeout(r, rule.delayMs));
    if (rule?.code) {
      req.resume();
      entry.code = rule.code;
      (entry as { injected: boolean }).injected = true;
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (rule.retryAfterSeconds !== undefined) headers['Retry-After'] = String(rule.retryAfterSeconds);
      res.writeHead(rule.code, headers);
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          code: rule.code,
          reason: REASONS[rule.code] ?? 'InternalError',
          message: `injected by the test's fault proxy: ${rule.code}`,
          ...(rule.retryAfterSeconds !== undefined ? { details: { retryAfterSeconds: rule.retryAfterSeconds } } : {}),
        }),
      );
      return;
    }
    this.forward(req, res, entry);
  }

  private forward(req: IncomingMessage, res: ServerResponse, entry: ProxiedRequest): void {
    const target = new URL(req.url ?? '/', this.plane.url);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = { ...req.headers, host: target.host };
    const upstreamReq = send(target, { method: req.method, headers, ca: this.plane.ca }, (upstream) => {
      entry.code = upstream.statusCode ?? 0;
      res.writeHead(upstream.statusCode ?? 502, upstream.headers);
      if (entry.verb !== 'watch') {
        upstream.pipe(res);
        return;
      }
      // the apiserver sends a watch's headers at once; so must the proxy (Node holds them until the first body write)
      res.flushHeaders();
      const watch = { req, res, upstream, stalledUntil: 0 };
      this.watches.add(watch);
      const done = () => this.watches.delete(watch);
      upstream.on('data', (chunk: Buffer) => {
        const wait = watch.stalledUntil - Date.now();
        if (wait <= 0) {
          if (!res.destroyed) res.write(chunk);
          return;
        }
        // hold this chunk and everything after it until the stall ends (a held stream does not keep the test
        // process alive once its tests are done)
        upstream.pause();
        setTimeout(() => {
          if (!res.destroyed) res.write(chunk);
          upstream.resume();
        }, wait).unref();
      });
      upstream.on('end', () => {
        done();
        res.end();
      });
      upstream.on('error', () => {
        done();
        res.destroy();
      });
      res.on('close', () => {
        done();
        upstream.destroy();
      });
    });
    upstreamReq.on('error', () => {
      entry.code = 502;
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          code: 502,
          reason: 'ServiceUnavailable',
          message: 'apiserver unreachable',
        }),
      );
    });
    req.pipe(upstreamReq);
  }
}
