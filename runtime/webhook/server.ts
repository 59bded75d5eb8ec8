/**
 * The webhook server: one HTTPS port serving typed admission handlers (validating and defaulting,
 * AdmissionReview v1) and CRD conversion (ConversionReview v1), as controller-runtime's
 * `webhook.Server` does.
 *
 * Design note:
 * - One server per operator, one port (default `:9443`, controller-runtime's), one path per handler.
 *   The paths are what the chart writes into the Validating/MutatingWebhookConfiguration and the
 *   CRD's conversion `clientConfig.service.path` (`webhookPath(...)` derives them as Kubebuilder does:
 *   `/validate-<group with dashes>-<version>-<kind lowercase>`, `/mutate-…`); conversion is served
 *   at {@link CONVERSION_PATH} (`/convert`) by the one handler registered with `conversion(...)`.
 * - Handlers are plain functions from the typed request to a verdict (validating) or to the changed
 *   object (defaulting: the server computes the JSON patch). They must not write: every webhook is
 *   declared `sideEffects: None`, so `dryRun` requests are safe; `request.dryRun` is passed through.
 * - TLS: the serving certificate comes from a {@link CertificateSource} and is swapped in place
 *   (`setSecureContext`) when it changes, without a restart or dropped connection. Until the first
 *   certificate arrives the server listens but handshakes fail, and `ready()` says why.
 * - Failure modes: a malformed review gets HTTP 400 (the apiserver applies the webhook's
 *   `failurePolicy`); a handler that throws denies with code 500 and is counted in
 *   `controller_runtime_webhook_panics_total` — a bug never admits. Bodies over `maxBodyBytes` get 413.
 * - Metrics (controller-runtime's names, in the manager's registry):
 *   `controller_runtime_webhook_requests_total{webhook=<path>,code=<HTTP code>}`,
 *   `controller_runtime_webhook_latency_seconds{webhook}`, `controller_runtime_webhook_requests_in_flight{webhook}`.
 * - Shutdown (`stop`): readiness fails first (the Service stops routing here), the listener keeps
 *   accepting for `shutdownDelayMs` (endpoints take a moment to propagate), then it closes and every
 *   in-flight review is answered (up to `drainTimeoutMs`) before the connections are closed.
 *
 * Expected flow:
 * ```ts
 * const server = new WebhookServer({ certificates: source, metrics, logger });
 * server.validating<SampleDB>('/validate-database-example-com-v1-sampledb', (req) => allowed());
 * server.defaulting<SampleDB>('/mutate-database-example-com-v1-sampledb', (db) => { db.spec.x ??= 1; return db; });
 * server.conversion((req) => ({ convertedObjects: req.objects.map(convert) }));
 * await server.start();
 * ```
 */
import type * as http from 'http';
import * as https from 'https';
import { AddressInfo } from 'net';
import { parseBindAddress } from '../health';
import { Logger, silentLogger } from '../log';
import { RuntimeMetrics } from '../metrics';
import type { KubeObject } from '../resource';
import { ADMISSION_REVIEW_API_VERSION, AdmissionRequest, AdmissionResponse, AdmissionReview } from './admission-review';
import { CertificateSource, ServingCertificate } from './certificate-source';
import {
  CONVERSION_PATH,
  CONVERSION_REVIEW_API_VERSION,
  ConversionHandler,
  ConversionRequest,
  ConversionReview,
} from './conversion-review';
import { DefaultingHandler, runDefaulting } from './defaulting';
import { ValidatingHandler, verdictResponse } from './validating';

/** Options of {@link WebhookServer}. */
export interface WebhookServerOptions {
  /** Where the serving certificate comes from (and how it is reloaded). */
  readonly certificates: CertificateSource;
  /** `[host]:port`; port 0 picks a free port (see `address`). @default ':9443' */
  readonly bindAddress?: string;
  /** @default - a registry of its own */
  readonly metrics?: RuntimeMetrics;
  /** @default - silent */
  readonly logger?: Logger;
  /** Largest review accepted (the apiserver's own request limit is 3 MiB; a review holds old and new object). @default 7340032 (7 MiB, controller-runtime's) */
  readonly maxBodyBytes?: number;
  /** How long the listener keeps accepting after `stop()` made readiness fail. @default 0 */
  readonly shutdownDelayMs?: number;
  /** How long in-flight reviews get to finish on `stop()`. @default 30000 */
  readonly drainTimeoutMs?: number;
  /**
   * How long an idle keep-alive connection stays open. Must exceed the client's own idle timeout (the
   * apiserver's is Go's 90 s), or a review can race the server's close and fail.
   * @default 120000
   */
  readonly keepAliveTimeoutMs?: number;
}

/** Above client-go's `IdleConnTimeout` (90 s, `utilnet.SetOldTransportDefaults`). */
const KEEP_ALIVE_TIMEOUT_MS = 120_000;

type Route =
  | { readonly type: 'validating'; readonly handler: ValidatingHandler<any> }
  | { readonly type: 'defaulting'; readonly handler: DefaultingHandler<any> }
  | { readonly type: 'conversion'; readonly handler: ConversionHandler };

/** Thrown for a review that cannot be decoded: answered with HTTP 400. */
class BadReview extends Error {}

/** See module docs. */
export class WebhookServer {
  private readonly routes = new Map<string, Route>();
  private readonly metrics: RuntimeMetrics;
  private readonly logger: Logger;
  private server: https.Server | undefined;
  private unsubscribe: (() => void) | undefined;
  private inFlight = 0;
  private drained: (() => void) | undefined;
  private stopping: Promise<void> | undefined;
  private hasCertificate = false;

  constructor(private readonly options: WebhookServerOptions) {
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.logger = options.logger ?? silentLogger;
  }

  /** Serves a validating handler at `path` (an exact path, e.g. `/validate-database-example-com-v1-sampledb`). */
  validating<T extends KubeObject>(path: string, handler: ValidatingHandler<T>): this {
    return this.register(path, { type: 'validating', handler });
  }

  /** Serves a defaulting (mutating) handler at `path`; the server computes the JSON patch from what it returns. */
  defaulting<T extends KubeObject>(path: string, handler: DefaultingHandler<T>): this {
    return this.register(path, { type: 'defaulting', handler });
  }

  /**
   * Serves CRD conversion (ConversionReview v1) at `path`, by default {@link CONVERSION_PATH} (`/convert`),
   * the path the chart writes into a CRD's `spec.conversion.webhook.clientConfig.service.path`.
   */
  conversion(handler: ConversionHandler, path: string = CONVERSION_PATH): this {
    return this.register(path, { type: 'conversion', handler });
  }

  /** The registered paths and what each serves. */
  get paths(): ReadonlyMap<string, 'validating' | 'defaulting' | 'conversion'> {
    return new Map([...this.routes].map(([p, r]) => [p, r.type]));
  }

  /** `host:port` bound (after `start`). */
  get address(): string | undefined {
    const a = this.server?.address() as AddressInfo | null | undefined;
    return a ? `${a.address === '0.0.0.0' || a.address === '::' ? '127.0.0.1' : a.address}:${a.port}` : undefined;
  }

  /** The bound port (after `start`). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null | undefined)?.port;
  }

  /** Reviews being answered now. */
  get inFlightRequests(): number {
    return this.inFlight;
  }

  /** Binds the port and starts the certificate source. Resolves once listening (a certificate may still be pending). */
  async start(): Promise<void> {
    if (this.server) return;
    const bind = parseBindAddress(this.options.bindAddress ?? ':9443');
    if (!bind) {
      throw new Error(
        `webhook server: bind address '${this.options.bindAddress}' disables it; omit the webhook server instead`,
      );
    }
    const server = https.createServer({ minVersion: 'TLSv1.2' }, (req, res) => {
      void this.serve(req, res);
    });
    // The apiserver's webhook client (Go net/http via client-go's transport defaults) keeps idle connections
    // for 90 s and does not retry a POST on a connection the server just closed. Node closes idle keep-alive
    // connections after 5 s, so a review sent at that moment failed ("server closed idle connection",
    // "connection reset by peer"). Outliving the client's idle timeout makes the client always close first.
    server.keepAliveTimeout = this.options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS;
    server.headersTimeout = server.keepAliveTimeout + 5_000;
    this.unsubscribe = this.options.certificates.onChange((c) => this.install(server, c));
    await this.options.certificates.start?.();
    const first = this.options.certificates.current();
    if (first) this.install(server, first);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(bind.port, bind.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('tlsClientError', (err) => this.logger.debug('TLS handshake failed', { error: err }));
    this.server = server;
    this.logger.info('webhook server listening', { address: this.address, paths: [...this.routes.keys()] });
  }

  /** Readiness: throws while the server is not listening, has no certificate yet, or is shutting down. */
  ready(): void {
    if (this.stopping) throw new Error('webhook server is shutting down');
    if (!this.server) throw new Error('webhook server is not listening');
    if (!this.hasCertificate) {
      const why = this.options.certificates.lastError;
      throw new Error(`webhook server has no serving certificate yet${why ? `: ${why}` : ''}`);
    }
  }

  /** Graceful shutdown (idempotent): see the module docs. */
  stop(): Promise<void> {
    if (!this.stopping) this.stopping = this.doStop();
    return this.stopping;
  }

  private register(path: string, route: Route): this {
    if (!path.startsWith('/')) throw new Error(`webhook path must start with '/', got '${path}'`);
    const existing = this.routes.get(path);
    if (existing) throw new Error(`webhook path '${path}' is already served by a ${existing.type} handler`);
    this.routes.set(path, route);
    return this;
  }

  private install(server: https.Server, certificate: ServingCertificate): void {
    try {
      server.setSecureContext({ cert: certificate.cert, key: certificate.key, minVersion: 'TLSv1.2' });
      this.hasCertificate = true;
      this.logger.info('webhook serving certificate loaded');
    } catch (err) {
      // Keep the previous certificate: a torn or mismatched pair must not take the server down.
      this.logger.error('webhook serving certificate rejected, keeping the previous one', { error: err });
    }
  }

  private async doStop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise((r) => setTimeout(r, this.options.shutdownDelayMs ?? 0));
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.inFlight > 0) {
      const drained = new Promise<void>((resolve) => {
        this.drained = resolve;
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.drainTimeoutMs ?? 30_000);
      });
      await Promise.race([drained, timeout]);
      clearTimeout(timer);
      if (this.inFlight > 0) {
        this.logger.warn('webhook server stopped with reviews still in flight', { inFlight: this.inFlight });
      }
    }
    server.closeAllConnections();
    await closed;
    this.unsubscribe?.();
    await this.options.certificates.stop?.();
    this.server = undefined;
    this.logger.info('webhook server stopped');
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const route = this.routes.get(path);
    if (!route) {
      // Not a webhook path: no metric series per random path.
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`no webhook at ${path}\n`);
      return;
    }
    const started = process.hrtime.bigint();
    this.inFlight++;
    this.metrics.webhookInFlight.inc({ webhook: path });
    if (this.stopping) res.setHeader('Connection', 'close');
    let code = 200;
    try {
      if (req.method !== 'POST') {
        throw Object.assign(new BadReview(`method ${req.method} not allowed: reviews are POSTed`), { status: 405 });
      }
      const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
      if (contentType !== 'application/json') {
        throw Object.assign(new BadReview(`content type '${contentType}' not supported: expected application/json`), {
          status: 415,
        });
      }
      const body = await this.readBody(req);
      const reply =
        route.type === 'conversion'
          ? await this.convert(route.handler, body, path)
          : await this.admit(route, body, path);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(reply));
    } catch (err) {
      code = (err as { status?: number }).status ?? (err instanceof BadReview ? 400 : 500);
      this.logger.warn('webhook request refused', { webhook: path, code, error: err });
      res.writeHead(code, { 'Content-Type': 'text/plain' }).end(`${(err as Error).message}\n`);
    } finally {
      this.metrics.webhookRequests.inc({ webhook: path, code: String(code) });
      this.metrics.webhookLatency.observe({ webhook: path }, Number(process.hrtime.bigint() - started) / 1e9);
      this.metrics.webhookInFlight.dec({ webhook: path });
      if (--this.inFlight === 0) this.drained?.();
    }
  }

  private readBody(req: http.IncomingMessage): Promise<unknown> {
    const limit = this.options.maxBodyBytes ?? 7 * 1024 * 1024;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          reject(Object.assign(new BadReview(`request body over ${limit} bytes`), { status: 413 }));
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      req.on('error', reject);
      req.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(new BadReview(`request body is not JSON: ${(err as Error).message}`));
        }
      });
    });
  }

  private async admit(route: Route, body: unknown, path: string): Promise<AdmissionReview> {
    const review = body as AdmissionReview;
    if (
      review?.apiVersion !== ADMISSION_REVIEW_API_VERSION ||
      review.kind !== 'AdmissionReview' ||
      typeof review.request?.uid !== 'string'
    ) {
      throw new BadReview(
        `expected an ${ADMISSION_REVIEW_API_VERSION} AdmissionReview with a request, got apiVersion '${review?.apiVersion}' kind '${review?.kind}' (set admissionReviewVersions: ['v1'])`,
      );
    }
    const request = review.request as AdmissionRequest;
    let response: AdmissionResponse;
    try {
      response =
        route.type === 'validating'
          ? verdictResponse(request.uid, await route.handler(request))
          : await runDefaulting(route.handler as DefaultingHandler, request);
    } catch (err) {
      this.metrics.webhookPanics.inc({ webhook: path });
      this.logger.error('webhook handler failed, denying', { webhook: path, uid: request.uid, error: err });
      response = verdictResponse(request.uid, {
        allowed: false,
        code: 500,
        message: `internal error in webhook handler: ${(err as Error).message ?? String(err)}`,
      });
    }
    return { apiVersion: ADMISSION_REVIEW_API_VERSION, kind: 'AdmissionReview', response };
  }

  private async convert(handler: ConversionHandler, body: unknown, path: string): Promise<ConversionReview> {
    const review = body as ConversionReview;
    if (
      review?.apiVersion !== CONVERSION_REVIEW_API_VERSION ||
      review.kind !== 'ConversionReview' ||
      typeof review.request?.uid !== 'string'
    ) {
      throw new BadReview(
        `expected an ${CONVERSION_REVIEW_API_VERSION} ConversionReview with a request, got apiVersion '${review?.apiVersion}' kind '${review?.kind}' (set conversionReviewVersions: ['v1'])`,
      );
    }
    const request = review.request as ConversionRequest;
    try {
      const response = await handler(request);
      return {
        apiVersion: CONVERSION_REVIEW_API_VERSION,
        kind: 'ConversionReview',
        response: { ...response, uid: request.uid, result: response.result ?? { status: 'Success' } },
      };
    } catch (err) {
      this.metrics.webhookPanics.inc({ webhook: path });
      this.logger.error('conversion failed', { webhook: path, uid: request.uid, error: err });
      return {
        apiVersion: CONVERSION_REVIEW_API_VERSION,
        kind: 'ConversionReview',
        response: {
          uid: request.uid,
          convertedObjects: [],
          result: { status: 'Failure', message: `conversion failed: ${(err as Error).message ?? String(err)}` },
        },
      };
    }
  }
}
