import { RuntimeMetrics } from '../../runtime/metrics';
import { WorkQueue } from '../../runtime/workqueue';

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

describe('WorkQueue', () => {
  test('coalesces adds of a waiting key', async () => {
    const metrics = new RuntimeMetrics();
    const q = new WorkQueue({ name: 'q', metrics });
    q.add('a');
    q.add('a');
    q.add('b');
    q.add('a');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(await metrics.value('workqueue_adds_total', { name: 'q' })).toBe(2);
    q.shutDown();
  });

  test('never hands out a key that is processing; an add during processing gives exactly one more run', async () => {
    const q = new WorkQueue({ name: 'q' });
    q.add('a');
    const first = await q.get();
    expect(first).toBe('a');
    q.add('a');
    q.add('a');
    q.add('a');
    expect(q.length).toBe(0); // dirty, but not handed out while processing
    let second: string | undefined;
    const pending = q.get().then((k) => {
      second = k;
    });
    await sleep(5);
    expect(second).toBeUndefined();
    q.done('a');
    await pending;
    expect(second).toBe('a');
    q.done('a');
    expect(q.length).toBe(0); // exactly one more run
    q.shutDown();
  });

  test('two workers never process the same key concurrently', async () => {
    const q = new WorkQueue({ name: 'q' });
    const active = new Set<string>();
    let overlaps = 0;
    let runs = 0;
    const worker = async () => {
      for (;;) {
        const k = await q.get();
        if (k === undefined) return;
        if (active.has(k)) overlaps++;
        active.add(k);
        runs++;
        await sleep(2);
        active.delete(k);
        q.done(k);
      }
    };
    const workers = [worker(), worker(), worker()];
    // 5 bursts of 30 adds over 3 keys, some while the keys are processing
    for (let burst = 0; burst < 5; burst++) {
      for (let i = 0; i < 30; i++) q.add(`k${i % 3}`);
      await sleep(1);
    }
    await sleep(50);
    q.shutDown();
    await Promise.all(workers);
    expect(overlaps).toBe(0);
    expect(runs).toBeGreaterThanOrEqual(3);
    // at most one run per key per burst, plus one for a key still processing when its last burst came (re-queued as
    // dirty): 150 adds coalesce to at most 18 runs however the workers are scheduled (16 seen at load average 45)
    expect(runs).toBeLessThanOrEqual(3 * (5 + 1));
  });

  test('per-item exponential backoff 5 ms doubling to the 1000 s cap, reset by forget', () => {
    const q = new WorkQueue({ name: 'q' });
    expect([0, 1, 2, 3].map((n) => q.backoffFor(n))).toEqual([5, 10, 20, 40]);
    expect(q.backoffFor(30)).toBe(1_000_000);
    q.addRateLimited('a');
    q.addRateLimited('a');
    q.addRateLimited('b');
    expect(q.numRequeues('a')).toBe(2);
    expect(q.numRequeues('b')).toBe(1);
    q.forget('a');
    expect(q.numRequeues('a')).toBe(0);
    q.shutDown();
  });

  test('rate-limited adds wait for the backoff, plain adds do not', async () => {
    jest.useFakeTimers();
    try {
      const q = new WorkQueue({ name: 'q', baseDelayMs: 100 });
      q.addRateLimited('a'); // 100 ms
      q.addRateLimited('a'); // 200 ms, but the earlier pending time wins
      expect(q.length).toBe(0);
      jest.advanceTimersByTime(99);
      expect(q.length).toBe(0);
      jest.advanceTimersByTime(1);
      expect(q.length).toBe(1);
      q.add('b');
      expect(q.length).toBe(2);
      q.shutDown();
    } finally {
      jest.useRealTimers();
    }
  });

  test('addAfter keeps the earliest time', () => {
    jest.useFakeTimers();
    try {
      const q = new WorkQueue({ name: 'q' });
      q.addAfter('a', 1000);
      q.addAfter('a', 300);
      q.addAfter('a', 5000);
      jest.advanceTimersByTime(300);
      expect(q.length).toBe(1);
      jest.advanceTimersByTime(5000);
      expect(q.length).toBe(1);
      q.shutDown();
    } finally {
      jest.useRealTimers();
    }
  });

  test('shutDown releases waiting getters and ignores later adds', async () => {
    const q = new WorkQueue({ name: 'q' });
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('x');
    expect(await q.get()).toBeUndefined();
  });

  test('exposes controller-runtime workqueue metrics', async () => {
    const metrics = new RuntimeMetrics();
    const q = new WorkQueue({ name: 'foo', metrics });
    q.add('a');
    const k = (await q.get())!;
    await sleep(5);
    const text = await metrics.expose();
    const unfinished = Number(
      /workqueue_unfinished_work_seconds\{name="foo",controller="foo"\} ([\d.e-]+)/.exec(text)![1],
    );
    const longest = Number(
      /workqueue_longest_running_processor_seconds\{name="foo",controller="foo"\} ([\d.e-]+)/.exec(text)![1],
    );
    expect(unfinished).toBeGreaterThan(0);
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(unfinished);
    q.done(k);
    q.addRateLimited(k);
    const after = await metrics.expose();
    for (const name of [
      'workqueue_depth',
      'workqueue_adds_total',
      'workqueue_queue_duration_seconds_count',
      'workqueue_work_duration_seconds_count',
      'workqueue_retries_total',
    ]) {
      expect(after).toMatch(new RegExp(`^${name}\\{name="foo"`, 'm'));
    }
    expect(await metrics.value('workqueue_work_duration_seconds', { name: 'foo' })).toBe(1);
    q.shutDown();
  });
});
