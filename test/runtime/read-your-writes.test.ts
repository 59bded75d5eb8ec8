import { MemoryClient } from './memory-client';
import { Logger, silentLogger } from '../../runtime/log';
import { ReadYourWritesClient } from '../../runtime/read-your-writes';
import { CacheReader } from '../../runtime/store';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' };
const cm = (name: string) => ({ ...CM, metadata: { name, namespace: 'ns' }, data: { a: '1' } });

/** A cache that shows a key at a resourceVersion once told to. */
function manualCache() {
  const waiters: Array<{ key: string; rv: string; resolve: (ok: boolean) => void; timer: NodeJS.Timeout }> = [];
  const cache = {
    get: () => undefined,
    waitForResourceVersion: (key: string, rv: string, timeoutMs = 5000) =>
      new Promise<boolean>((resolve) => {
        const w = {
          key,
          rv,
          resolve,
          timer: setTimeout(() => {
            waiters.splice(waiters.indexOf(w), 1);
            resolve(false);
          }, timeoutMs),
        };
        waiters.push(w);
      }),
  } as unknown as CacheReader;
  const show = (key: string, rv: string) => {
    for (const w of [...waiters]) {
      if (w.key === key && w.rv === rv) {
        clearTimeout(w.timer);
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(true);
      }
    }
  };
  return { cache, show, waiting: () => waiters.length };
}

describe('ReadYourWritesClient.deferred: the writes of one reconcile', () => {
  test("a write returns the server's object at once; settled() resolves only once the cache shows every write", async () => {
    const { cache, show } = manualCache();
    const deferred = new ReadYourWritesClient(new MemoryClient(), { cacheOf: () => cache }).deferred();
    const a = await deferred.create(cm('a'));
    const b = await deferred.patch(CM, 'a', 'ns', { type: 'merge', body: { data: { a: '2' } } });
    expect(deferred.pending).toBe(2);
    let settled = false;
    void deferred.settled().then(() => {
      settled = true;
    });
    show('ns/a', a.metadata!.resourceVersion!);
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    expect(deferred.pending).toBe(1);
    show('ns/a', b.metadata!.resourceVersion!);
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(true);
    expect(deferred.pending).toBe(0);
  });

  test('an uncached kind and a delete are not waited for', async () => {
    const client = new MemoryClient();
    const deferred = new ReadYourWritesClient(client, { cacheOf: () => undefined }).deferred();
    await deferred.create(cm('b'));
    await deferred.delete(CM, 'b', 'ns');
    expect(deferred.pending).toBe(0);
    await deferred.settled();
    expect(client.writes().map((w) => w.verb)).toEqual(['create', 'delete']);
  });

  test('a write the cache never shows settles after timeoutMs, with a warning', async () => {
    const { cache } = manualCache();
    const warnings: string[] = [];
    const logger = {
      ...silentLogger,
      warn: (msg: string) => {
        warnings.push(msg);
      },
    } as Logger;
    const deferred = new ReadYourWritesClient(new MemoryClient(), {
      cacheOf: () => cache,
      timeoutMs: 30,
      logger,
    }).deferred();
    await deferred.create(cm('c'));
    await deferred.settled();
    expect(deferred.pending).toBe(0);
    expect(warnings).toEqual(['own write did not reach the cache in time']);
  });
});
