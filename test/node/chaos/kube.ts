/**
 * A small Kubernetes client for the chaos suite's polling loops: GETs, a delete and a merge patch
 * with the admin token of the cluster's kubeconfig, straight over HTTPS. Polling once a second with
 * `kubectl` would cost a process start each time on a 2-core machine; the suite also has to keep
 * polling while the apiserver restarts (requests then fail fast and the caller retries).
 */
import { readFileSync } from 'fs';
import { request } from 'https';

export interface KubeAccess {
  readonly server: string;
  readonly token: string;
  readonly ca: Buffer;
}

/** Server, token and CA of a kubeconfig written by cluster.sh (one cluster, one token user). */
export function kubeAccess(kubeconfigPath: string): KubeAccess {
  const text = readFileSync(kubeconfigPath, 'utf8');
  const pick = (re: RegExp) => {
    const m = re.exec(text);
    if (!m) throw new Error(`${kubeconfigPath}: no ${re.source}`);
    return m[1];
  };
  return {
    server: pick(/server:\s*"?([^"\s}]+)"?/),
    token: pick(/token:\s*"?([^"\s}]+)"?/),
    ca: readFileSync(pick(/certificate-authority:\s*"?([^"\s}]+)"?/)),
  };
}

/** One request; rejects on a non-2xx status (with the body) or after `timeoutMs`. */
export function kube<T = any>(
  k: KubeAccess,
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 5000,
): Promise<T> {
  const url = new URL(path, k.server);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: k.ca,
        timeout: timeoutMs,
        headers: {
          authorization: `Bearer ${k.token}`,
          accept: 'application/json',
          ...(payload
            ? {
                'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json',
                'content-length': Buffer.byteLength(payload),
              }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if ((res.statusCode ?? 0) >= 300) {
            reject(new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`));
          } else {
            resolve(text ? JSON.parse(text) : undefined);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/**
 * Whether the apiserver answers `/readyz` with 200 at `server` (default: the kubeconfig's, 127.0.0.1:16443),
 * e.g. `https://10.96.0.1:443`, the `kubernetes` Service as pods reach it (through kube-proxy's rules, which
 * the host's own connections pass too). Any failure (refused, reset, timeout, not ready) is false.
 */
export function readyz(k: KubeAccess, server = k.server, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      new URL('/readyz', server),
      {
        method: 'GET',
        ca: k.ca,
        servername: 'kubernetes',
        timeout: timeoutMs,
        headers: { authorization: `Bearer ${k.token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode === 200));
        res.on('error', () => resolve(false));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}
