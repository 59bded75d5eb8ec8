/**
 * Probe and metrics HTTP endpoints (controller-runtime `healthz` + metrics server).
 *
 * Guarantees:
 * - `/healthz` and `/readyz` answer 200 `ok` when every named check passes, else 500 listing the
 *   failing checks; `/healthz/<name>` and `/readyz/<name>` run one check; `?verbose` lists all.
 * - `/metrics` is served by a separate {@link MetricsServer} on its own address.
 * - A bind address of `0` disables a server; port `0` picks a free port (see `address`).
 */
import * as http from 'http';
import { AddressInfo } from 'net';
import { RuntimeMetrics } from './metrics';

/** A named check: resolves/returns to pass, throws or returns false to fail. */
export type HealthCheck = () => boolean | void | Promise<boolean | void>;

/** Parses `host:port`, `:port` or `port`; `undefined` for `0` (disabled). */
export function parseBindAddress(address: string): { host: string; port: number } | undefined {
  if (address === '0' || address === '') return undefined;
  const i = address.lastIndexOf(':');
  const host = i >= 0 ? address.slice(0, i) : '';
  const port = Number(i >= 0 ? address.slice(i + 1) : address);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`bind address must be [host]:port, got '${address}'`);
  }
  return { host: host || '0.0.0.0', port };
}

async function runCheck(check: HealthCheck): Promise<string | undefined> {
  try {
    return (await check()) === false ? 'check returned false' : undefined;
  } catch (err) {
    return (err as Error).message ?? String(err);
  }
}

abstract class SmallServer {
  private server: http.Server | undefined;

  /** `host:port` actually bound (after `start`). */
  get address(): string | undefined {
    const a = this.server?.address() as AddressInfo | null | undefined;
    return a ? `${a.address === '0.0.0.0' || a.address === '::' ? '127.0.0.1' : a.address}:${a.port}` : undefined;
  }

  async start(bindAddress: string): Promise<void> {
    const bind = parseBindAddress(bindAddress);
    if (!bind || this.server) return;
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(String(err));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(bind.port, bind.host, () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;
}

/** `/healthz` and `/readyz` with named checks. */
export class ProbeServer extends SmallServer {
  private readonly checks = { healthz: new Map<string, HealthCheck>(), readyz: new Map<string, HealthCheck>() };

  /** Adds a liveness check. */
  addHealthCheck(name: string, check: HealthCheck): void {
    this.checks.healthz.set(name, check);
  }

  /** Adds a readiness check. */
  addReadyCheck(name: string, check: HealthCheck): void {
    this.checks.readyz.set(name, check);
  }

  /** Runs the checks of an endpoint; returns failing names with reasons. */
  async evaluate(endpoint: 'healthz' | 'readyz', only?: string): Promise<{ ok: boolean; lines: string[] }> {
    const lines: string[] = [];
    let ok = true;
    for (const [name, check] of this.checks[endpoint]) {
      if (only && name !== only) continue;
      const failure = await runCheck(check);
      if (failure) ok = false;
      lines.push(failure ? `[-]${name} failed: ${failure}` : `[+]${name} ok`);
    }
    return { ok, lines };
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const [, endpoint, name] = url.pathname.split('/');
    if ((endpoint !== 'healthz' && endpoint !== 'readyz') || (name && !this.checks[endpoint].has(name))) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    const { ok, lines } = await this.evaluate(endpoint, name);
    res.writeHead(ok ? 200 : 500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
    const verbose = url.searchParams.has('verbose') || !ok;
    res.end(verbose ? `${lines.join('\n')}\n${endpoint} check ${ok ? 'passed' : 'failed'}\n` : 'ok');
  }
}

/** `/metrics` in the Prometheus text format. */
export class MetricsServer extends SmallServer {
  constructor(private readonly metrics: RuntimeMetrics) {
    super();
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    const body = await this.metrics.expose();
    res.writeHead(200, { 'Content-Type': this.metrics.registry.contentType });
    res.end(body);
  }
}
