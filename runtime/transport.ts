/**
 * HTTP transport to the kube-apiserver, authenticated by a client-node `KubeConfig`.
 *
 * Expected flow: {@link KubeConfigTransport} asks `KubeConfig.applyToHTTPSOptions` for TLS material
 * and auth headers, and sends the request with Node's `http`/`https` over one keep-alive agent whose
 * TLS context is built once. Credentials that can change (an exec plugin, an auth provider such as
 * the in-cluster token file) are asked for again once a second at most, so they refresh (client-go
 * re-reads a token file once a minute); static ones (a token, a client certificate, basic auth in the
 * kubeconfig) only once: `applyToHTTPSOptions` reads and decodes the certificates and builds a new
 * agent each time it is called, a third of a write's client-side CPU when called per request.
 *
 * Guarantees: `request` resolves with the status, headers and the whole body for every HTTP status
 * (it only rejects on network errors); `stream` resolves once response headers arrive and then
 * yields the body line by line (watch framing is one JSON object per line).
 *
 * Caveats: we use raw requests instead of the generated client-node APIs because those default
 * PATCH to json-patch, hide status codes in exceptions and cannot stream watch lines with
 * bookmarks under our control.
 */
import * as http from 'http';
import * as https from 'https';
import * as tls from 'tls';
import type { ConnectionConfig } from './kubeconfig';

/** A request to the apiserver; `path` includes the query string. */
export interface TransportRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Client-side timeout for the whole exchange. */
  readonly timeoutMs?: number;
}

/** A fully read response. */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Record<string, string | undefined>;
  readonly body: string;
}

/** An open streaming response. */
export interface TransportStream {
  readonly status: number;
  readonly headers: Record<string, string | undefined>;
  /** Lines of the body; ends when the server closes the stream or {@link abort} is called. */
  readonly lines: AsyncIterable<string>;
  /** Closes the connection. */
  abort(): void;
}

/** The HTTP layer the {@link RestClient} talks through (injectable for tests). */
export interface Transport {
  /** Host label for metrics (`host:port`). */
  readonly host: string;
  request(req: TransportRequest): Promise<TransportResponse>;
  stream(req: TransportRequest): Promise<TransportStream>;
  /** Releases sockets. */
  close(): void;
}

function flattenHeaders(h: http.IncomingHttpHeaders): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/**
 * The whole body as text. Plain `data`/`end` listeners rather than `for await`: a stream's async
 * iterator costs a few promises per chunk, and every write and read of a controller goes through here.
 */
function readBody(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', () =>
      resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    res.once('error', reject);
    // A connection lost mid-body closes the response without `end` (as `for await` saw it: ECONNRESET).
    res.once('close', () => {
      if (!res.complete) reject(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    });
  });
}

/** Splits a byte stream into lines. */
async function* readLines(res: http.IncomingMessage): AsyncIterable<string> {
  let buffer = '';
  res.setEncoding('utf8');
  try {
    for await (const chunk of res) {
      buffer += chunk as string;
      // One slice per line and one for the rest (not one per line for the rest: a chunk can hold many events).
      let start = 0;
      let i: number;
      while ((i = buffer.indexOf('\n', start)) >= 0) {
        const line = buffer.slice(start, i).trim();
        start = i + 1;
        if (line) yield line;
      }
      buffer = buffer.slice(start);
    }
  } catch (err) {
    // An aborted stream ends the iteration; the watcher decides what that means.
    if ((err as { code?: string }).code !== 'ECONNRESET' && (err as Error).name !== 'AbortError') throw err;
  }
  if (buffer.trim()) yield buffer.trim();
}

/** How long credentials that can change are reused. */
const CREDENTIALS_REFRESH_MS = 1000;

/** Transport using a kubeconfig (client-node's `KubeConfig` or the runtime's light one) for server URL, TLS and authentication. */
export class KubeConfigTransport implements Transport {
  public readonly host: string;
  private readonly server: URL;
  private agent: http.Agent | undefined;
  /** Whether the current user's credentials can change while we run (see module docs). */
  private readonly credentialsRefresh: boolean;
  private resolved: { readonly options: https.RequestOptions; readonly until: number } | undefined;

  constructor(private readonly kubeConfig: ConnectionConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    this.server = new URL(cluster.server);
    this.host = this.server.host;
    const user = kubeConfig.getCurrentUser();
    this.credentialsRefresh = Boolean(user?.exec || user?.authProvider);
  }

  async request(req: TransportRequest): Promise<TransportResponse> {
    const { message } = await this.send(req);
    const body = await readBody(message);
    return { status: message.statusCode ?? 0, headers: flattenHeaders(message.headers), body };
  }

  async stream(req: TransportRequest): Promise<TransportStream> {
    const res = await this.send(req);
    return {
      status: res.message.statusCode ?? 0,
      headers: flattenHeaders(res.message.headers),
      lines: readLines(res.message),
      abort: () => {
        res.request.destroy();
        res.message.destroy();
      },
    };
  }

  close(): void {
    this.agent?.destroy();
    this.agent = undefined;
  }

  /** TLS material and auth of the current user: once for static credentials, else at most once a second. */
  private async connectionOptions(): Promise<https.RequestOptions> {
    const now = Date.now();
    if (this.resolved && now < this.resolved.until) return this.resolved.options;
    const options: https.RequestOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(options);
    this.resolved = { options, until: this.credentialsRefresh ? now + CREDENTIALS_REFRESH_MS : Infinity };
    return options;
  }

  private async send(req: TransportRequest): Promise<{ request: http.ClientRequest; message: http.IncomingMessage }> {
    const opts = await this.connectionOptions();
    const isHttps = this.server.protocol === 'https:';
    if (!this.agent) {
      // One secure context for every socket (passing ca/cert/key instead builds a context per
      // connection and puts the PEM text into the agent's key of every request).
      this.agent = isHttps
        ? new https.Agent({
            keepAlive: true,
            secureContext: tls.createSecureContext({
              ca: opts.ca,
              cert: opts.cert,
              key: opts.key,
              pfx: opts.pfx,
              passphrase: opts.passphrase,
            }),
            rejectUnauthorized: opts.rejectUnauthorized,
            servername: opts.servername,
          })
        : new http.Agent({ keepAlive: true });
    }
    const basePath = this.server.pathname.replace(/\/$/, '');
    const headers = { ...(req.headers ?? {}), ...(opts.headers as Record<string, string>) };
    if (opts.auth) headers.Authorization = 'Basic ' + Buffer.from(opts.auth).toString('base64');
    if (req.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(req.body));
    const lib = isHttps ? https : http;
    return new Promise((resolve, reject) => {
      const request = lib.request(
        {
          protocol: this.server.protocol,
          hostname: this.server.hostname,
          port: this.server.port || (isHttps ? 443 : 80),
          path: basePath + req.path,
          method: req.method,
          headers,
          agent: this.agent,
          timeout: req.timeoutMs,
        },
        (message) => resolve({ request, message }),
      );
      request.on('timeout', () =>
        request.destroy(new Error(`${req.method} ${req.path}: client timeout after ${req.timeoutMs} ms`)),
      );
      request.on('error', reject);
      // end(body), not write(body) + end(): Node then sends headers and body in one write (one TLS record, one syscall).
      request.end(req.body);
    });
  }
}
