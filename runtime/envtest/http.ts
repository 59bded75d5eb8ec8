/** JSON over HTTP(S) to the control plane: bearer token, the cluster's own CA (verification stays on). */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpTarget {
  readonly url: string;
  /** PEM bundle the server certificate must chain to (https only). */
  readonly ca?: string;
  readonly token?: string;
}

export interface HttpReply {
  readonly code: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the text when the body is not JSON. */
  readonly body: any;
}

export interface RequestOptions {
  /** @default 'application/json' (for bodies that are not strings: 'application/merge-patch+json', 'application/apply-patch+yaml' ...) */
  readonly contentType?: string;
  /** @default 30000 */
  readonly timeoutMs?: number;
  /** Extra request headers (e.g. `Impersonate-User`, `Impersonate-Group` as an array for several groups). @default none */
  readonly headers?: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * One request; the body is sent as JSON unless it is a string.
 *
 * A request sent on a kept-alive connection that the server closed meanwhile fails before any reply ("socket hang
 * up"): the server never read it, so it is sent once more on a new connection, as Go's transport does for a
 * connection the server closed while idle (and Node's documentation advises: `request.reusedSocket`). Any other
 * failure is the caller's; its message says whether the connection was new or reused, and after how long it failed.
 */
export async function request(
  target: HttpTarget,
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<HttpReply> {
  try {
    return await sendOnce(target, method, path, body, opts);
  } catch (e) {
    if (!(e instanceof ConnectionLost && e.reused)) throw e;
    return sendOnce(target, method, path, body, opts);
  }
}

/** A connection that failed before any reply came. */
class ConnectionLost extends Error {
  readonly code?: string;

  constructor(
    cause: Error & { code?: string },
    readonly reused: boolean,
    ms: number,
  ) {
    super(`${cause.message} (on a ${reused ? 'reused' : 'new'} connection, after ${ms} ms)`);
    this.code = cause.code;
  }
}

function sendOnce(
  target: HttpTarget,
  method: string,
  path: string,
  body: unknown,
  opts: RequestOptions,
): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const u = new URL(path, target.url);
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string | number | string[]> = { Accept: 'application/json' };
    for (const [name, value] of Object.entries(opts.headers ?? {})) {
      headers[name] = typeof value === 'string' ? value : [...value];
    }
    if (target.token) headers.Authorization = `Bearer ${target.token}`;
    if (payload !== undefined) {
      headers['Content-Type'] = opts.contentType ?? 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    const started = Date.now();
    let replied = false;
    let timedOut = false;
    const req = send(u, { method, headers, ca: target.ca, timeout: opts.timeoutMs ?? 30_000 }, (res) => {
      replied = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        resolve({ code: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => {
      timedOut = true;
      req.destroy(new Error(`envtest: ${method} ${path} timed out`));
    });
    req.on('error', (err: Error & { code?: string }) =>
      reject(replied || timedOut ? err : new ConnectionLost(err, req.reusedSocket, Date.now() - started)),
    );
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
