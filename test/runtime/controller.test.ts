import { Controller, Request } from '../../runtime/controller';
import { TerminalError } from '../../runtime/errors';
import { silentLogger } from '../../runtime/log';
import { RuntimeMetrics } from '../../runtime/metrics';

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}

async function until(cond: () => boolean, timeoutMs = 2000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(2);
  }
}

function makeController(reconcile: (r: Request) => Promise<any>, concurrency = 1) {
  const metrics = new RuntimeMetrics();
  const c = new Controller({ name: 'test', concurrency, backoffBaseMs: 1 }, { reconcile }, metrics, silentLogger);
  return { c, metrics };
}

describe('Controller', () => {
  test('retries thrown errors with backoff until success, counting results', async () => {
    let calls = 0;
    const { c, metrics } = makeController(async () => { calls++; if (calls < 3) throw new Error('transient'); });
    await c.start();
    c.queue.add('ns/a');
    await until(() => calls === 3);
    await sleep(20);
    expect(calls).toBe(3);
    expect(await metrics.value('controller_runtime_reconcile_total', { controller: 'test', result: 'error' })).toBe(2);
    expect(await metrics.value('controller_runtime_reconcile_total', { controller: 'test', result: 'success' })).toBe(1);
    expect(await metrics.value('controller_runtime_reconcile_errors_total', { controller: 'test' })).toBe(2);
    expect(await metrics.value('workqueue_retries_total', { name: 'test' })).toBe(2);
    expect(await metrics.value('controller_runtime_reconcile_time_seconds', { controller: 'test' })).toBe(3);
    expect(await metrics.value('controller_runtime_max_concurrent_reconciles', { controller: 'test' })).toBe(1);
    expect(c.queue.numRequeues('ns/a')).toBe(0); // forgotten after success
    await c.stop();
  });

  test('terminal errors are counted and not retried', async () => {
    let calls = 0;
    const { c, metrics } = makeController(async () => { calls++; throw new TerminalError('bad spec'); });
    await c.start();
    c.queue.add('ns/a');
    await until(() => calls === 1);
    await sleep(30);
    expect(calls).toBe(1);
    expect(await metrics.value('controller_runtime_terminal_reconcile_errors_total', { controller: 'test' })).toBe(1);
    expect(await metrics.value('controller_runtime_reconcile_errors_total', { controller: 'test' })).toBe(1);
    await c.stop();
  });

  test('programming errors count as panics and are retried; the worker survives', async () => {
    let calls = 0;
    const { c, metrics } = makeController(async (r) => {
      calls++;
      if (r.name === 'bad' && calls === 1) (undefined as any).boom();
    });
    await c.start();
    c.queue.add('ns/bad');
    await until(() => calls === 2);
    c.queue.add('ns/good');
    await until(() => calls === 3);
    expect(await metrics.value('controller_runtime_reconcile_panics_total', { controller: 'test' })).toBe(1);
    await c.stop();
  });

  test('requeueAfter runs again after the delay and resets the backoff', async () => {
    const times: number[] = [];
    let calls = 0;
    const { c, metrics } = makeController(async () => {
      calls++;
      times.push(Date.now());
      if (calls === 1) throw new Error('x');
      if (calls === 2) return { requeueAfter: 100 };
      return {};
    });
    await c.start();
    c.queue.add('ns/a');
    await until(() => calls === 3);
    expect(times[2] - times[1]).toBeGreaterThanOrEqual(95);
    expect(c.queue.numRequeues('ns/a')).toBe(0);
    expect(await metrics.value('controller_runtime_reconcile_total', { result: 'requeue_after' })).toBe(1);
    await c.stop();
  });

  test('with several workers a key is never reconciled concurrently, different keys are', async () => {
    const active = new Set<string>();
    let overlap = 0;
    let maxParallel = 0;
    let runs = 0;
    const { c, metrics } = makeController(async (r) => {
      if (active.has(r.name)) overlap++;
      active.add(r.name);
      maxParallel = Math.max(maxParallel, active.size);
      runs++;
      await sleep(15);
      active.delete(r.name);
    }, 4);
    await c.start();
    for (let i = 0; i < 4; i++) c.queue.add(`ns/k${i}`);
    await sleep(5);
    for (let i = 0; i < 4; i++) c.queue.add(`ns/k${i}`); // while processing: one more run each
    await until(() => runs === 8);
    await sleep(40);
    expect(runs).toBe(8);
    expect(overlap).toBe(0);
    expect(maxParallel).toBe(4);
    expect(await metrics.value('controller_runtime_active_workers', { controller: 'test' })).toBe(0);
    await c.stop();
  });

  test('stop waits for in-flight reconciles and takes no new work', async () => {
    let finished = 0;
    let started = 0;
    const { c } = makeController(async () => { started++; await sleep(50); finished++; });
    await c.start();
    c.queue.add('ns/a');
    await until(() => started === 1);
    c.queue.add('ns/b');
    const done = await c.stop(1000);
    expect(done).toBe(true);
    expect(finished).toBe(1);
    expect(started).toBe(1);
  });

  test('stop gives up after the grace period', async () => {
    const { c } = makeController(async () => { await sleep(500); });
    await c.start();
    c.queue.add('ns/a');
    await sleep(5);
    expect(await c.stop(20)).toBe(false);
  });
});
