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

/** One request; the body is sent as JSON unless it is a string. */
export function request(
  target: HttpTarget,
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
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
    const req = send(u, { method, headers, ca: target.ca, timeout: opts.timeoutMs ?? 30_000 }, (res) => {
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
    req.on('timeout', () => req.destroy(new Error(`envtest: ${method} ${path} timed out`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
