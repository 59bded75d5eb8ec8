import { MemoryClient } from './memory-client';
import { EVENT_WRITERS, EventRecorder, MAX_QUEUED_EVENTS, SpamFilter } from '../../runtime/events';
import { createLogger } from '../../runtime/log';
import { RuntimeMetrics } from '../../runtime/metrics';

const MIN = 60_000;

describe('SpamFilter', () => {
  test('allows a burst of 25 per object, then 1 per 5 minutes', () => {
    const f = new SpamFilter();
    const t = 1_000_000;
    let allowed = 0;
    for (let i = 0; i < 40; i++) if (f.allow('obj', t)) allowed++;
    expect(allowed).toBe(25);
    expect(f.allow('obj', t + 4 * MIN)).toBe(false);
    expect(f.allow('obj', t + 5 * MIN)).toBe(true);
    expect(f.allow('obj', t + 5 * MIN + 1000)).toBe(false);
    expect(f.allow('other', t)).toBe(true); // per object
  });

  test('refills up to the burst only', () => {
    const f = new SpamFilter(3, 1000);
    for (let i = 0; i < 3; i++) expect(f.allow('o', 0)).toBe(true);
    expect(f.allow('o', 0)).toBe(false);
    let allowed = 0;
    for (let i = 0; i < 10; i++) if (f.allow('o', 1_000_000)) allowed++;
    expect(allowed).toBe(3);
  });
});

describe('EventRecorder', () => {
  const foo = {
    apiVersion: 'samplecontroller.k8s.io/v1alpha1',
    kind: 'Foo',
    metadata: { namespace: 'ns', name: 'example', uid: 'u1', resourceVersion: '5' },
  };

  test('creates an events.k8s.io/v1 Event, then aggregates repeats into a series', async () => {
    const client = new MemoryClient();
    let now = Date.parse('2026-01-01T00:00:00Z');
    const rec = new EventRecorder({
      client,
      reportingController: 'samplecontroller.k8s.io/foo',
      reportingInstance: 'pod-1',
      now: () => now,
    });
    const input = {
      type: 'Warning' as const,
      reason: 'ErrResourceExists',
      action: 'Reconcile',
      note: 'Resource "x" already exists and is not managed by Foo',
    };
    await rec.event(foo, input);
    now += 1000;
    await rec.event(foo, input);
    now += 1000;
    await rec.event(foo, input);
    const writes = client.writes();
    expect(writes.map((w) => w.verb)).toEqual(['create', 'patch', 'patch']);
    expect(writes[0].body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'ns' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'samplecontroller.k8s.io/foo',
      reportingInstance: 'pod-1',
      type: 'Warning',
      reason: 'ErrResourceExists',
      action: 'Reconcile',
      regarding: { kind: 'Foo', name: 'example', namespace: 'ns', uid: 'u1' },
    });
    expect(writes[2]).toMatchObject({
      patchType: 'merge',
      key: writes[0].key,
      body: { series: { count: 3, lastObservedTime: '2026-01-01T00:00:02.000000Z' } },
    });
    // a different note is a different series
    await rec.event(foo, { ...input, note: 'other' });
    expect(client.writes().map((w) => w.verb)).toEqual(['create', 'patch', 'patch', 'create']);
  });

  test("the spam filter holds each reason of an object in its own bucket: a flood of one cannot drop another's", async () => {
    const reasonsWritten = async (spamFilterPer?: 'object') => {
      const client = new MemoryClient();
      const rec = new EventRecorder({
        client,
        reportingController: 'c',
        reportingInstance: 'i',
        spamFilterPer,
        now: () => 0,
      });
      for (let i = 0; i < 30; i++) {
        await rec.event(foo, { type: 'Normal', reason: 'BackupCompleted', action: 'Backup', note: `backup ${i}` });
      }
      await rec.event(foo, { type: 'Normal', reason: 'FailoverCompleted', action: 'Failover', note: 'db-1 promoted' });
      return { dropped: rec.dropped, reasons: client.writes().map((w) => (w.body as { reason: string }).reason) };
    };
    // by default: 25 backups written, 5 dropped, and the failover's event written from a bucket of its own
    const perReason = await reasonsWritten();
    expect(perReason.dropped).toBe(5);
    expect(perReason.reasons).toEqual([...Array(25).fill('BackupCompleted'), 'FailoverCompleted']);
    // client-go's key (the object alone): the backups took every token, the failover's event is dropped too
    const perObject = await reasonsWritten('object');
    expect(perObject.dropped).toBe(6);
    expect(perObject.reasons).toEqual(Array(25).fill('BackupCompleted'));
  });

  test('drops events over the spam limit and never throws on write errors', async () => {
    const client = new MemoryClient();
    client.create = async () => {
      throw new Error('boom');
    };
    const rec = new EventRecorder({ client, reportingController: 'c', reportingInstance: 'i', burst: 2, now: () => 0 });
    for (let i = 0; i < 5; i++) {
      await expect(
        rec.event(foo, { type: 'Normal', reason: 'R', action: 'A', note: `n${i}` }),
      ).resolves.toBeUndefined();
    }
    expect(rec.dropped).toBe(3);
  });

  test('writes at most EVENT_WRITERS events at a time, in order, and drops what does not fit the queue', async () => {
    const client = new MemoryClient();
    const create = client.create.bind(client);
    let inFlight = 0;
    let maxInFlight = 0;
    client.create = async (obj) => {
      maxInFlight = Math.max(maxInFlight, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      return create(obj);
    };
    const rec = new EventRecorder({ client, reportingController: 'c', reportingInstance: 'i' });
    const objects = Array.from({ length: EVENT_WRITERS + MAX_QUEUED_EVENTS + 5 }, (_, i) => ({
      ...foo,
      metadata: { ...foo.metadata, name: `foo-${i}`, uid: `u-${i}` },
    }));
    await Promise.all(
      objects.map((o) => rec.event(o, { type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'ok' })),
    );
    expect(maxInFlight).toBe(EVENT_WRITERS);
    // the first EVENT_WRITERS are written at once, MAX_QUEUED_EVENTS wait behind them, the rest are dropped
    expect(rec.dropped).toBe(5);
    const regarding = client.writes().map((w) => (w.body as { regarding: { name: string } }).regarding.name);
    expect(regarding).toEqual(objects.slice(0, EVENT_WRITERS + MAX_QUEUED_EVENTS).map((o) => o.metadata.name));
  });

  test('a share of the budget: that part of the writers and of the queue; a function is followed after each write, so a lowered share (a shard ring grew) takes effect at once', async () => {
    const client = new MemoryClient();
    const create = client.create.bind(client);
    let inFlight = 0;
    const inFlightAtEachCreate: number[] = [];
    // every write waits until the test opens the gate: no timer decides which writer finishes first (a 1 ms timer
    // did, and under a CI run's load a writer finished before the share was lowered and took a fifth event)
    let open: () => void = () => undefined;
    const gate = new Promise<void>((r) => (open = r));
    client.create = async (obj) => {
      inFlightAtEachCreate.push(++inFlight);
      await gate;
      inFlight--;
      return create(obj);
    };
    let share = 1;
    const rec = new EventRecorder({ client, reportingController: 'c', reportingInstance: 'i', share: () => share });
    expect([rec.writers, rec.maxQueued]).toEqual([EVENT_WRITERS, MAX_QUEUED_EVENTS]);
    const events = Array.from({ length: 40 }, (_, i) =>
      rec.event(
        { ...foo, metadata: { ...foo.metadata, name: `foo-${i}`, uid: `u-${i}` } },
        { type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'ok' },
      ),
    );
    expect(inFlightAtEachCreate).toEqual([1, 2, 3, 4]);
    share = 1 / 4; // four members now: this one's part of the budget
    expect([rec.writers, rec.maxQueued]).toEqual([EVENT_WRITERS / 4, MAX_QUEUED_EVENTS / 4]);
    open();
    await Promise.all(events);
    // the four writers finish their writes; three of them stop, one goes on alone
    expect(inFlightAtEachCreate.slice(4)).toEqual(Array(36).fill(1));
    expect(client.writes()).toHaveLength(40);
    // and a share too small for one writer still writes, one at a time
    share = 1 / 100;
    expect([rec.writers, rec.maxQueued]).toEqual([1, 10]);
    await rec.event(
      { ...foo, metadata: { ...foo.metadata, name: 'last', uid: 'u-last' } },
      {
        type: 'Normal',
        reason: 'Synced',
        action: 'Reconcile',
        note: 'ok',
      },
    );
    expect(client.writes()).toHaveLength(41);
  });

  test('a repeat taken while its first event is still being created joins that series', async () => {
    const client = new MemoryClient();
    const create = client.create.bind(client);
    client.create = async (obj) => {
      const created = await create(obj);
      await new Promise((r) => setTimeout(r, 20)); // the response is slow
      return created;
    };
    const rec = new EventRecorder({ client, reportingController: 'c', reportingInstance: 'i' });
    const input = { type: 'Normal' as const, reason: 'Synced', action: 'Reconcile', note: 'ok' };
    const first = rec.event(foo, input);
    await new Promise((r) => setTimeout(r, 5));
    const repeat = rec.event(foo, input);
    await Promise.all([first, repeat]);
    expect(client.writes().map((w) => w.verb)).toEqual(['create', 'patch']);
    expect(client.writes()[1].body).toMatchObject({ series: { count: 2 } });
  });

  test('counts every event asked for by result, and warns of a full queue at its first drop, then once a minute', async () => {
    const client = new MemoryClient();
    const create = client.create.bind(client);
    let failNext = false;
    client.create = async (obj) => {
      await new Promise((r) => setTimeout(r, 1));
      if (failNext) {
        failNext = false;
        throw new Error('boom');
      }
      return create(obj);
    };
    const metrics = new RuntimeMetrics();
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', sink: (line) => lines.push(line) });
    const queueFull = () =>
      lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'event queue full: dropping events');
    let now = 0;
    const rec = new EventRecorder({
      client,
      reportingController: 'c',
      reportingInstance: 'i',
      metrics,
      logger,
      now: () => now,
      burst: 2,
    });
    const input = { type: 'Normal' as const, reason: 'Synced', action: 'Reconcile', note: 'ok' };
    const count = (result: string) =>
      metrics.value('controller_runtime_events_total', { reporting_controller: 'c', result });

    await rec.event(foo, input); // created
    await rec.event(foo, input); // a repeat: series
    await rec.event(foo, input); // over the burst of 2: spam filter
    failNext = true;
    await rec.event({ ...foo, metadata: { ...foo.metadata, uid: 'u2' } }, input); // failed
    const many = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        ...foo,
        metadata: { ...foo.metadata, name: `f${from + i}`, uid: `v${from + i}` },
      }));
    // EVENT_WRITERS taken at once, MAX_QUEUED_EVENTS wait, 3 dropped: one warning
    const first = many(0, EVENT_WRITERS + MAX_QUEUED_EVENTS + 3).map((o) => rec.event(o, input));
    expect(queueFull()).toHaveLength(1);
    now += 30_000; // within the minute: counted, not logged
    const second = many(10_000, 2).map((o) => rec.event(o, input));
    expect(queueFull()).toHaveLength(1);
    now += 30_000; // a minute after the warning: the next drop logs the four since, and itself
    const third = many(20_000, 1).map((o) => rec.event(o, input));
    await Promise.all([...first, ...second, ...third]);

    expect(await count('created')).toBe(1 + EVENT_WRITERS + MAX_QUEUED_EVENTS);
    expect(await count('series')).toBe(1);
    expect(await count('dropped_spam')).toBe(1);
    expect(await count('failed')).toBe(1);
    expect(await count('dropped_queue')).toBe(6);
    expect(rec.dropped).toBe(7);
    expect(queueFull()).toMatchObject([
      { level: 'warn', dropped: 1, queued: MAX_QUEUED_EVENTS, reportingController: 'c' },
      { level: 'warn', dropped: 5 },
    ]);
  });
});
