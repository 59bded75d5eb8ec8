/** Watch streams: one JSON event per line, history replay, selector transitions, bookmarks, timeouts, faults. */
import { ServerResponse } from 'node:http';
import { Registry } from './registry';
import { ResourceInfo, apiVersionOf } from './resources';
import { Matcher } from './selectors';
import { expired } from './status';
import { StoredEvent } from './store';

export interface WatchRequest {
  readonly res: ResourceInfo;
  readonly namespace?: string;
  readonly labels: Matcher;
  readonly fields: Matcher;
  readonly resourceVersion?: string;
  readonly allowBookmarks: boolean;
  readonly sendInitialEvents: boolean;
  readonly timeoutSeconds?: number;
  /** Rewrites event objects (kubectl asks for Tables); bookmarks and errors are left alone. */
  readonly transform?: (obj: any) => any;
}

export interface WatchControl {
  /** events are held back until this time (stallWatches) */
  stalledUntil: number;
  readonly bookmarkIntervalMs: number;
}

export class WatchStream {
  private readonly unsubscribe: () => void;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly queue: string[] = [];
  private flushTimer?: NodeJS.Timeout;
  private closed = false;
  /** resourceVersion of the last event this watcher has seen (sent or filtered out) */
  private progressRv: number;

  constructor(private readonly registry: Registry, private readonly response: ServerResponse, private readonly req: WatchRequest,
    private readonly control: WatchControl, private readonly onClose: (w: WatchStream) => void) {
    const store = registry.store;
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
    response.flushHeaders();
    response.on('close', () => this.finish());
    this.progressRv = store.currentRv;
    this.unsubscribe = () => undefined;

    const rvParam = req.resourceVersion;
    // sendInitialEvents (watch-list) always starts from the current state, whatever resourceVersion (NotOlderThan) says
    if (rvParam && rvParam !== '0' && !req.sendInitialEvents) {
      const rv = Number(rvParam); // format checked before the stream starts (validateListOptions)
      const oldest = store.oldestWatchableRv(req.res.storageKey);
      if (rv < oldest) {
        this.send({ type: 'ERROR', object: expired(`too old resource version: ${rv} (${oldest})`).toStatus() });
        this.end();
        return;
      }
      for (const ev of store.eventsSince(req.res.storageKey, rv)) this.onEvent(ev);
      this.progressRv = Math.max(rv, store.currentRv);
    } else {
      for (const object of registry.listViews(req.res, req.namespace)) {
        if (this.matches(object)) this.send({ type: 'ADDED', object: this.shape(object) });
      }
      if (req.sendInitialEvents && req.allowBookmarks) this.sendBookmark(true);
    }
    const unsubscribeEvents = store.subscribe((ev) => this.onEvent(ev));
    // the resource's storage is gone (its CRD was deleted): the apiserver ends such watches
    const unsubscribeDrop = store.onDrop((key) => {
      if (key === req.res.storageKey) this.end();
    });
    this.unsubscribe = () => {
      unsubscribeEvents();
      unsubscribeDrop();
    };
    if (req.allowBookmarks && control.bookmarkIntervalMs > 0) {
      this.timers.push(setInterval(() => this.sendBookmark(false), control.bookmarkIntervalMs));
    }
    if (req.timeoutSeconds !== undefined && req.timeoutSeconds > 0) {
      // Like the watch cache, tell a bookmark-aware client how far it got right before the timeout closes the stream.
      this.timers.push(setTimeout(() => {
        if (req.allowBookmarks) this.sendBookmark(false);
        this.end();
      }, req.timeoutSeconds * 1000));
    }
  }

  private matches(obj: any): boolean {
    if (this.req.res.namespaced && this.req.namespace && obj.metadata?.namespace !== this.req.namespace) return false;
    return this.req.labels(obj) && this.req.fields(obj);
  }

  private onEvent(ev: StoredEvent): void {
    if (ev.storageKey !== this.req.res.storageKey) return;
    this.progressRv = ev.rv;
    const view = this.registry.readonlyView(this.req.res, ev.object);
    const now = this.matches(view);
    const before = ev.oldObject ? this.matches(this.registry.readonlyView(this.req.res, ev.oldObject)) : false;
    let type: string | undefined;
    if (ev.type === 'ADDED') type = now ? 'ADDED' : undefined;
    else if (ev.type === 'DELETED') type = now ? 'DELETED' : undefined;
    else if (now && before) type = 'MODIFIED';
    else if (now) type = 'ADDED';
    else if (before) type = 'DELETED';
    if (type) this.send({ type, object: this.shape(view) });
  }

  private shape(obj: any): any {
    return this.req.transform ? this.req.transform(obj) : obj;
  }

  private sendBookmark(initialEventsEnd: boolean): void {
    const metadata: any = { resourceVersion: String(Math.max(this.progressRv, this.registry.store.currentRv)) };
    if (initialEventsEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
    this.send({ type: 'BOOKMARK', object: { kind: this.req.res.kind, apiVersion: apiVersionOf(this.req.res), metadata } });
  }

  private send(ev: unknown): void {
    if (this.closed) return;
    this.queue.push(`${JSON.stringify(ev)}\n`);
    this.flush();
  }

  private flush(): void {
    if (this.closed) return;
    const wait = this.control.stalledUntil - Date.now();
    if (wait > 0) {
      if (!this.flushTimer) {
        this.flushTimer = setTimeout(() => {
          this.flushTimer = undefined;
          this.flush();
        }, wait);
      }
      return;
    }
    while (this.queue.length) this.response.write(this.queue.shift());
  }

  /** Clean end of the stream (timeout, 410): the chunked response is terminated properly. */
  end(): void {
    if (this.closed) return;
    this.flushNow();
    this.finish();
    this.response.end();
  }

  /** Abrupt end: the TCP connection is destroyed mid-stream. */
  drop(): void {
    this.finish();
    this.response.socket?.destroy();
    this.response.destroy();
  }

  private flushNow(): void {
    if (this.control.stalledUntil > Date.now()) return; // a stalled stream delivers nothing, not even at its end
    while (this.queue.length) this.response.write(this.queue.shift());
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.onClose(this);
  }
}
