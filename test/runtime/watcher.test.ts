import { until } from './support';
import { KubeClient, ListOptions, ListResult, WatchEvent, WatchOptions, WatchStream } from '../../runtime/client';
import { ApiError } from '../../runtime/errors';
import { RuntimeMetrics } from '../../runtime/metrics';
import { KubeObject } from '../../runtime/resource';
import { Watcher, WatcherEvent } from '../../runtime/watcher';

type Step = { list: ListResult } | { watch: WatchEvent[] | ApiError; hold?: boolean };

/** A KubeClient that replays a script of list/watch answers and records the calls. */
class ScriptedClient {
  public readonly calls: string[] = [];
  constructor(private readonly steps: Step[]) {}

  async list(_ref: unknown, options: ListOptions = {}): Promise<ListResult> {
    const step = this.steps.shift();
    this.calls.push(options.resourceVersion === undefined ? 'list' : `list@${options.resourceVersion}`);
    if (!step || !('list' in step)) throw new Error(`unexpected list, next step ${JSON.stringify(step)}`);
    return step.list;
  }

  async watch(_ref: unknown, options: WatchOptions): Promise<WatchStream> {
    this.calls.push(`watch@${options.resourceVersion}`);
    const step = this.steps.shift();
    if (!step || !('watch' in step)) {
      // end of script: a stream that stays open until aborted
      let abort!: () => void;
      const closed = new Promise<void>((r) => {
        abort = r;
      });
      return {
        events: (async function* () {
          await closed;
        })(),
        abort,
      };
    }
    if (step.watch instanceof ApiError) throw step.watch;
    const events = step.watch;
    return {
      events: (async function* () {
        yield* events;
      })(),
      abort: () => undefined,
    };
  }
}

const obj = (name: string, rv: string, extra: object = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, resourceVersion: rv, managedFields: [{ manager: 'x' }] },
  ...extra,
});
const status410 = {
  kind: 'Status',
  code: 410,
  reason: 'Expired',
  message: 'too old resource version',
} as unknown as KubeObject;

function startWatcher(client: ScriptedClient, metrics = new RuntimeMetrics()) {
  const seen: WatcherEvent[] = [];
  const w = new Watcher(
    {
      client: client as unknown as KubeClient,
      resource: { apiVersion: 'v1', kind: 'ConfigMap' },
      metrics,
      backoff: { initialMs: 5, maxMs: 20 },
      timeoutSecondsRange: [300, 600],
    },
    (e) => seen.push(e),
  );
  w.start();
  return { w, seen, metrics };
}

describe('Watcher', () => {
  test('watches from the list resourceVersion, follows bookmarks, strips managedFields', async () => {
    const client = new ScriptedClient([
      { list: { items: [obj('a', '4')], resourceVersion: '5' } },
      {
        watch: [
          { type: 'ADDED', object: obj('b', '6') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } },
          { type: 'DELETED', object: obj('a', '10') },
        ],
      },
    ]);
    const { w, seen } = startWatcher(client);
    await until('second watch', () => client.calls.length >= 3);
    await w.stop();
    // the stream ended (server timeout) after events → resume from the last resourceVersion (the delete's)
    expect(client.calls).toEqual(['list@0', 'watch@5', 'watch@10']);
    expect(seen.map((e) => e.type)).toEqual(['Relisted', 'Applied', 'Deleted']);
    expect((seen[0] as any).objects[0].metadata.managedFields).toBeUndefined();
    expect((seen[1] as any).object.metadata.managedFields).toBeUndefined();
  });

  test('an in-stream 410 ERROR and an HTTP 410 both re-list; other errors back off and retry', async () => {
    const metrics = new RuntimeMetrics();
    const client = new ScriptedClient([
      { list: { items: [], resourceVersion: '5' } },
      {
        watch: [
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } },
          { type: 'ERROR', object: status410 },
        ],
      },
      { list: { items: [obj('x', '20')], resourceVersion: '20' } },
      { watch: new ApiError(410, 'GET', '/api/v1/configmaps', { reason: 'Expired', code: 410 }) },
      { list: { items: [], resourceVersion: '30' } },
      { watch: new ApiError(500, 'GET', '/api/v1/configmaps', { reason: 'InternalError', code: 500 }) },
      {
        watch: [
          { type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError' } as unknown as KubeObject },
        ],
      },
    ]);
    const { w, seen } = startWatcher(client, metrics);
    await until('final watch', () => client.calls.length >= 8);
    await w.stop();
    // The first list from the watch cache (resourceVersion=0), relists after 410 consistent (none).
    expect(client.calls).toEqual(['list@0', 'watch@5', 'list', 'watch@20', 'list', 'watch@30', 'watch@30', 'watch@30']);
    expect(seen.filter((e) => e.type === 'Relisted')).toHaveLength(3);
    expect(await metrics.value('runtime_watch_restarts_total', { reason: 'gone' })).toBe(2);
    expect(await metrics.value('runtime_watch_errors_total', { reason: '500' })).toBe(2);
  });

  test('a handler that throws is counted and does not stop the watcher', async () => {
    const metrics = new RuntimeMetrics();
    const client = new ScriptedClient([
      { list: { items: [obj('a', '1')], resourceVersion: '1' } },
      {
        watch: [
          { type: 'ADDED', object: obj('b', '2') },
          { type: 'ADDED', object: obj('c', '3') },
        ],
      },
    ]);
    let calls = 0;
    const w = new Watcher(
      { client: client as unknown as KubeClient, resource: { apiVersion: 'v1', kind: 'ConfigMap' }, metrics },
      () => {
        calls++;
        throw new Error('handler bug');
      },
    );
    w.start();
    await until('events delivered', () => calls === 3);
    await w.stop();
    expect(await metrics.value('runtime_watch_errors_total', { reason: 'handler' })).toBe(3);
  });

  test('a quiet watch is left open until its server-side timeout; only a stream silent 30 s past it is restarted', async () => {
    jest.useFakeTimers();
    try {
      const metrics = new RuntimeMetrics();
      // After the list, the script ends: the watch stays open and silent (a quiet resource, or a half-open connection).
      const client = new ScriptedClient([{ list: { items: [], resourceVersion: '5' } }]);
      const w = new Watcher(
        {
          client: client as unknown as KubeClient,
          resource: { apiVersion: 'v1', kind: 'ConfigMap' },
          metrics,
          timeoutSecondsRange: [300, 300],
        },
        () => undefined,
      );
      w.start();
      await jest.advanceTimersByTimeAsync(0);
      expect(client.calls).toEqual(['list@0', 'watch@5']);
      // The old 70 s inactivity watchdog restarted here; the apiserver ends the stream itself at 300 s.
      await jest.advanceTimersByTimeAsync(329_000);
      expect(client.calls).toEqual(['list@0', 'watch@5']);
      expect(await metrics.value('runtime_watch_restarts_total', { reason: 'watchdog' })).toBe(0);
      await jest.advanceTimersByTimeAsync(2_000);
      expect(client.calls).toEqual(['list@0', 'watch@5', 'watch@5']);
      expect(await metrics.value('runtime_watch_restarts_total', { reason: 'watchdog' })).toBe(1);
      const stopped = w.stop();
      await jest.advanceTimersByTimeAsync(1_000);
      await stopped;
    } finally {
      jest.useRealTimers();
    }
  });
});
