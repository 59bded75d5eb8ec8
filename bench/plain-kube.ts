// The bench's own view of the apiserver: plain HTTPS (Node's `https`, the admin token and the cluster's
// CA), list, watch, create and merge-patch, and nothing else. The measuring side of the side-by-side
// bench (its clock, the convergence predicate, the stand-in marking Deployments available, the end-state
// diff) goes through this file only, never through the runtime under test (test/bench/independence.test.ts
// checks the imports), so a fault of the runtime cannot make the measurement agree with it.
import * as https from 'https';

/** Where and as whom the bench talks to the apiserver. */
export interface PlainKubeTarget {
  /** `https://127.0.0.1:port` */
  readonly url: string;
  readonly token: string;
  /** PEM of the cluster's CA. */
  readonly ca: string;
}

/** One object as the apiserver sends it (only what the bench reads is typed). */
export interface Obj {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly uid?: string;
    readonly resourceVersion?: string;
    readonly generation?: number;
    readonly labels?: Record<string, string>;
    readonly annotations?: Record<string, string>;
    readonly ownerReferences?: ReadonlyArray<{
      readonly apiVersion: string;
      readonly kind: string;
      readonly name: string;
      readonly uid: string;
      readonly controller?: boolean;
      readonly blockOwnerDeletion?: boolean;
    }>;
  };
  readonly spec?: any;
  readonly status?: any;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    method: string,
    path: string,
    body: string,
  ) {
    super(`${method} ${path}: HTTP ${status}: ${body.slice(0, 300)}`);
  }
}

/** A keep-alive HTTPS client for the bench's driver. */
export class PlainKube {
  private readonly agent: https.Agent;
  private readonly base: URL;

  constructor(private readonly target: PlainKubeTarget) {
    this.base = new URL(target.url);
    this.agent = new https.Agent({ keepAlive: true, ca: target.ca, maxSockets: 64 });
  }

  close(): void {
    this.agent.destroy();
  }

  /** One request; resolves with the parsed body of a 2xx answer, rejects with {@link HttpError} otherwise. */
  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<any> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          hostname: this.base.hostname,
          port: this.base.port,
          path,
          method,
          agent: this.agent,
          headers: {
            Authorization: `Bearer ${this.target.token}`,
            Accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) resolve(text ? JSON.parse(text) : {});
            else reject(new HttpError(res.statusCode ?? 0, method, path, text));
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  /** Every item of a collection (pages of 500) and the list's resourceVersion. */
  async list(collection: string): Promise<{ items: Obj[]; resourceVersion: string }> {
    const items: Obj[] = [];
    let resourceVersion = '';
    let cont = '';
    do {
      const page = await this.request(
        'GET',
        `${collection}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
      );
      items.push(...page.items);
      resourceVersion ||= page.metadata.resourceVersion;
      cont = page.metadata.continue ?? '';
    } while (cont);
    return { items, resourceVersion };
  }

  /**
   * Watches a collection from `resourceVersion`, calling `onEvent` per event (bookmarks update the
   * resourceVersion only). `onEnd` is called when the server ends the stream (with the last
   * resourceVersion seen) or the connection fails; `stop()` ends it without calling `onEnd`.
   */
  watch(
    collection: string,
    resourceVersion: string,
    onEvent: (type: string, obj: Obj) => void,
    onEnd: (resourceVersion: string, err?: Error) => void,
  ): { stop(): void } {
    let stopped = false;
    let last = resourceVersion;
    const path = `${collection}?watch=1&allowWatchBookmarks=true&timeoutSeconds=3600&resourceVersion=${encodeURIComponent(resourceVersion)}`;
    const req = https.request(
      {
        hostname: this.base.hostname,
        port: this.base.port,
        path,
        method: 'GET',
        agent: this.agent,
        headers: { Authorization: `Bearer ${this.target.token}`, Accept: 'application/json' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          if (!stopped) onEnd(last, new HttpError(res.statusCode ?? 0, 'GET', path, ''));
          return;
        }
        res.setEncoding('utf8');
        let buffer = '';
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let start = 0;
          let i: number;
          while ((i = buffer.indexOf('\n', start)) >= 0) {
            const line = buffer.slice(start, i);
            start = i + 1;
            if (!line.trim()) continue;
            const event = JSON.parse(line) as { type: string; object: Obj };
            if (event.type === 'ERROR') {
              stopped = true;
              req.destroy();
              onEnd(last, new Error(`watch ${collection}: ${JSON.stringify(event.object)}`));
              return;
            }
            last = event.object.metadata.resourceVersion ?? last;
            if (event.type !== 'BOOKMARK') onEvent(event.type, event.object);
          }
          buffer = buffer.slice(start);
        });
        res.on('end', () => {
          if (!stopped) onEnd(last);
        });
        res.on('error', (err) => {
          if (!stopped) {
            stopped = true;
            onEnd(last, err);
          }
        });
      },
    );
    req.on('error', (err) => {
      if (!stopped) {
        stopped = true;
        onEnd(last, err);
      }
    });
    req.end();
    return {
      stop: () => {
        stopped = true;
        req.destroy();
      },
    };
  }
}

/**
 * The objects of one collection kept current by list + watch (re-watching from the last resourceVersion
 * when the server ends the stream, re-listing when that fails): the bench's own mirror of what the
 * apiserver holds, independent of the runtime's informer.
 */
export class PlainMirror {
  readonly items = new Map<string, Obj>();
  private watching: { stop(): void } | undefined;
  private stopped = false;

  constructor(
    private readonly kube: PlainKube,
    private readonly collection: string,
    private readonly onChange: (obj: Obj) => void,
  ) {}

  async start(): Promise<void> {
    const { items, resourceVersion } = await this.kube.list(this.collection);
    for (const o of items) this.items.set(o.metadata.name, o);
    for (const o of items) this.onChange(o);
    this.watchFrom(resourceVersion);
  }

  stop(): void {
    this.stopped = true;
    this.watching?.stop();
  }

  private watchFrom(resourceVersion: string): void {
    if (this.stopped) return;
    this.watching = this.kube.watch(
      this.collection,
      resourceVersion,
      (type, obj) => {
        if (type === 'DELETED') this.items.delete(obj.metadata.name);
        else this.items.set(obj.metadata.name, obj);
        this.onChange(obj);
      },
      (last, err) => {
        if (this.stopped) return;
        if (!err) return this.watchFrom(last);
        // Gone (410) or a failed connection: list afresh after a short pause, then watch again.
        setTimeout(() => {
          this.kube.list(this.collection).then(
            ({ items, resourceVersion: listedAt }) => {
              this.items.clear();
              for (const o of items) this.items.set(o.metadata.name, o);
              for (const o of items) this.onChange(o);
              this.watchFrom(listedAt);
            },
            () => this.watchFrom(last),
          );
        }, 200);
      },
    );
  }
}

/** JSON with object keys sorted at every level: equal values give equal text. */
export function sortedJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
