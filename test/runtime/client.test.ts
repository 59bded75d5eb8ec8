import { RestClient } from '../../runtime/client';
import { ApiError } from '../../runtime/errors';
import { RuntimeMetrics } from '../../runtime/metrics';
import { Transport, TransportRequest, TransportResponse, TransportStream } from '../../runtime/transport';

type Responder = (req: TransportRequest) => TransportResponse | Promise<TransportResponse>;

class ScriptedTransport implements Transport {
  public readonly host = 'api.test:6443';
  public readonly requests: TransportRequest[] = [];
  constructor(private readonly responders: Responder[]) {}
  async request(req: TransportRequest): Promise<TransportResponse> {
    this.requests.push(req);
    const next = this.responders.length > 1 ? this.responders.shift()! : this.responders[0];
    return next(req);
  }
  async stream(req: TransportRequest): Promise<TransportStream> {
    this.requests.push(req);
    const res = await this.responders.shift()!(req);
    const lines = res.body.split('\n').filter(Boolean);
    return {
      status: res.status,
      headers: res.headers,
      lines: (async function* () {
        yield* lines;
      })(),
      abort: () => undefined,
    };
  }
  close(): void {}
}

const ok =
  (body: unknown, status = 200): Responder =>
  () => ({ status, headers: {}, body: JSON.stringify(body) });
const fail =
  (code: number, reason: string, headers: Record<string, string> = {}): Responder =>
  () => ({
    status: code,
    headers,
    body: JSON.stringify({ kind: 'Status', status: 'Failure', reason, code, message: `${reason}!` }),
  });
const FOO = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };

function client(t: Transport, metrics = new RuntimeMetrics()) {
  return new RestClient({ transport: t, metrics, retryBaseMs: 1 });
}

describe('RestClient', () => {
  test('every patch states its content type; apply sends fieldManager and force', async () => {
    const t = new ScriptedTransport([ok({})]);
    const c = client(t);
    await c.patch(FOO, 'a', 'ns', { type: 'merge', body: { spec: {} } });
    await c.patch(FOO, 'a', 'ns', { type: 'json', ops: [{ op: 'test', path: '/x', value: 1 }] });
    await c.patch(
      FOO,
      'a',
      'ns',
      { type: 'apply', body: { apiVersion: FOO.apiVersion, kind: 'Foo' } },
      { fieldManager: 'foo' },
    );
    await c.patch(FOO, 'a', 'ns', { type: 'merge', body: { status: {} } }, { subresource: 'status' });
    expect(t.requests.map((r) => [r.method, r.path, r.headers!['Content-Type']])).toEqual([
      ['PATCH', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/a', 'application/merge-patch+json'],
      ['PATCH', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/a', 'application/json-patch+json'],
      [
        'PATCH',
        '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/a?fieldManager=foo&force=true',
        'application/apply-patch+yaml',
      ],
      ['PATCH', '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/a/status', 'application/merge-patch+json'],
    ]);
    await expect(c.patch(FOO, 'a', 'ns', { type: 'apply', body: {} })).rejects.toThrow(/needs a fieldManager/);
  });

  test('lists all pages with limit=500 and continue; remembers explicit plurals', async () => {
    const t = new ScriptedTransport([
      ok({ metadata: { resourceVersion: '10', continue: 'c1' }, items: [{ metadata: { name: 'a' } }] }),
      ok({ metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 'b' } }] }),
    ]);
    const c = client(t);
    const list = await c.list(FOO, { namespace: 'ns' });
    expect(list.resourceVersion).toBe('10');
    expect(list.items.map((i) => [i.kind, i.metadata!.name])).toEqual([
      ['Foo', 'a'],
      ['Foo', 'b'],
    ]);
    expect(t.requests.map((r) => r.path)).toEqual([
      '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos?limit=500',
      '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos?limit=500&continue=c1',
    ]);
    await c.get({ apiVersion: FOO.apiVersion, kind: 'Foo' }, 'a', 'ns');
    expect(t.requests[2].path).toBe('/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos/a');
  });

  test('a list with a resourceVersion sends it on the first page only (the apiserver refuses it beside continue)', async () => {
    const t = new ScriptedTransport([
      ok({ metadata: { resourceVersion: '10', continue: 'c1' }, items: [{ metadata: { name: 'a' } }] }),
      ok({ metadata: { resourceVersion: '10' }, items: [{ metadata: { name: 'b' } }] }),
    ]);
    const list = await client(t).list(FOO, { namespace: 'ns', resourceVersion: '0' });
    expect(list.items).toHaveLength(2);
    expect(t.requests.map((r) => r.path)).toEqual([
      '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos?limit=500&resourceVersion=0',
      '/apis/samplecontroller.k8s.io/v1alpha1/namespaces/ns/foos?limit=500&continue=c1',
    ]);
  });

  test('429 waits for Retry-After and is counted per code', async () => {
    const metrics = new RuntimeMetrics();
    const t = new ScriptedTransport([
      fail(429, 'TooManyRequests', { 'retry-after': '1' }),
      ok({ metadata: { name: 'a' } }),
    ]);
    const started = Date.now();
    await client(t, metrics).get(FOO, 'a', 'ns');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(t.requests).toHaveLength(2);
    expect(
      await metrics.value('rest_client_requests_total', { code: '429', method: 'GET', host: 'api.test:6443' }),
    ).toBe(1);
    expect(await metrics.value('rest_client_requests_total', { code: '200' })).toBe(1);
    expect(await metrics.value('rest_client_request_duration_seconds', { verb: 'GET' })).toBe(2);
  });

  test('5xx is retried with backoff for idempotent requests', async () => {
    const t = new ScriptedTransport([
      fail(503, 'ServiceUnavailable'),
      fail(500, 'InternalError'),
      ok({ metadata: { name: 'a' } }),
    ]);
    await client(t).replace({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' },
    });
    expect(t.requests).toHaveLength(3);
  });

  test('409 is retried for patches without a resourceVersion precondition only', async () => {
    const t1 = new ScriptedTransport([fail(409, 'Conflict'), ok({})]);
    await client(t1).patch(FOO, 'a', 'ns', { type: 'merge', body: { status: { x: 1 } } }, { subresource: 'status' });
    expect(t1.requests).toHaveLength(2);

    const t2 = new ScriptedTransport([fail(409, 'Conflict'), ok({})]);
    await expect(
      client(t2).patch(FOO, 'a', 'ns', { type: 'merge', body: { metadata: { resourceVersion: '3' }, spec: {} } }),
    ).rejects.toMatchObject({ code: 409, reason: 'Conflict' });
    expect(t2.requests).toHaveLength(1);

    const t3 = new ScriptedTransport([fail(409, 'Conflict'), ok({})]);
    await expect(
      client(t3).replace({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', namespace: 'ns', resourceVersion: '1' },
      }),
    ).rejects.toBeInstanceOf(ApiError);
    expect(t3.requests).toHaveLength(1);

    const t4 = new ScriptedTransport([fail(409, 'AlreadyExists'), ok({})]);
    await expect(
      client(t4).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' } }),
    ).rejects.toMatchObject({ reason: 'AlreadyExists' });
    expect(t4.requests).toHaveLength(1);
  });

  test('4xx errors are typed ApiErrors with the Status reason', async () => {
    const t = new ScriptedTransport([fail(404, 'NotFound')]);
    const err = await client(t)
      .get(FOO, 'missing', 'ns')
      .catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 404, reason: 'NotFound', method: 'GET' });
    expect(err.message).toMatch(/foos\/missing: 404 NotFound/);
  });

  test('watch sends allowWatchBookmarks and timeoutSeconds, and turns HTTP 410 into an ApiError', async () => {
    const t = new ScriptedTransport([fail(410, 'Expired')]);
    const err = await client(t)
      .watch(FOO, { resourceVersion: '5', timeoutSeconds: 321 })
      .catch((e) => e);
    expect(err).toMatchObject({ code: 410 });
    expect(t.requests[0].path).toBe(
      '/apis/samplecontroller.k8s.io/v1alpha1/foos?watch=1&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=321',
    );
  });

  test('discovers plurals of unknown kinds once', async () => {
    const t = new ScriptedTransport([
      ok({
        resources: [
          { name: 'widgets', kind: 'Widget' },
          { name: 'widgets/status', kind: 'Widget' },
        ],
      }),
      ok({ metadata: { name: 'w' } }),
    ]);
    const c = client(t);
    await c.get({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'w', 'ns');
    await c.get({ apiVersion: 'example.com/v1', kind: 'Widget' }, 'w', 'ns');
    expect(t.requests.map((r) => r.path)).toEqual([
      '/apis/example.com/v1',
      '/apis/example.com/v1/namespaces/ns/widgets/w',
      '/apis/example.com/v1/namespaces/ns/widgets/w',
    ]);
  });
});

describe('RestClient network errors', () => {
  function failing(code: string, thenOk = true): ScriptedTransport {
    let first = true;
    const t = new ScriptedTransport([
      () => {
        if (first || !thenOk) {
          first = false;
          throw Object.assign(new Error(`connect ${code}`), { code });
        }
        return { status: 201, headers: {}, body: '{}' };
      },
    ]);
    return t;
  }

  test('connection refused is retried for any verb (the request was never sent)', async () => {
    const t = failing('ECONNREFUSED');
    await client(t).create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'x-', namespace: 'ns' } });
    expect(t.requests).toHaveLength(2);
  });

  test('a reset connection is not retried for a generateName create (it may have been applied)', async () => {
    const t = failing('ECONNRESET');
    const metrics = new RuntimeMetrics();
    await expect(
      client(t, metrics).create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { generateName: 'x-', namespace: 'ns' },
      }),
    ).rejects.toThrow(/ECONNRESET/);
    expect(t.requests).toHaveLength(1);
    expect(await metrics.value('rest_client_requests_total', { code: '<error>', method: 'POST' })).toBe(1);
  });

  test('close() ends pending retries', async () => {
    const t = new ScriptedTransport([fail(503, 'ServiceUnavailable', { 'retry-after': '30' })]);
    const c = client(t);
    const pending = c.get(FOO, 'a', 'ns');
    await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    c.close();
    await expect(pending).rejects.toMatchObject({ code: 503 });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
