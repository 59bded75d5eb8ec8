/**
 * Replays the recorded kube-apiserver v1.32 session (shared/fixtures/kube-apiserver beside the repository) against the fake,
 * in the recorded order, and compares status codes, headers and bodies. resourceVersions are compared exactly
 * after shifting by a constant offset (the fake starts from a different counter), uids and timestamps by shape.
 */
import { FakeApiServer, encodeContinue, startFakeApiServer } from '.';
import { readdirSync } from 'node:fs';
import { FIXTURE_DIR, Fixture, fixture, sampleDbCrd } from './fixtures';

const UA = 'Python-urllib/3.12';
const TS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Reply {
  code: number;
  headers: Headers;
  body: any;
  lines?: any[];
}

describe('fidelity with recorded kube-apiserver responses', () => {
  let server: FakeApiServer;
  let offset = 0; // fake rv - recorded rv
  const replies = new Map<string, Reply>();

  const shiftRv = (rv: string | number) => String(Number(rv) - offset);
  const unshiftPath = (path: string) => path
    .replace(/resourceVersion=(\d+)/, (_m, rv) => `resourceVersion=${Number(rv) + offset}`)
    .replace(/continue=([A-Za-z0-9_-]+)/, (_m, tok) => {
      const t = JSON.parse(Buffer.from(tok, 'base64url').toString());
      return `continue=${encodeContinue(t.rv + offset, t.start)}`;
    });

  /** Request bodies carry the recorded resourceVersion and uid: translate them to the fake's. */
  function unshiftBody(body: any): any {
    if (!body?.metadata) return body;
    const meta = { ...body.metadata };
    if (meta.resourceVersion) meta.resourceVersion = String(Number(meta.resourceVersion) + offset);
    if (meta.uid) meta.uid = replies.get('create-201')!.body.metadata.uid;
    return { ...body, metadata: meta };
  }

  /** Makes a fake response comparable with a recorded one. */
  function normalize(v: any, key = ''): any {
    if (Array.isArray(v)) {
      const items = v.map((x) => normalize(x));
      if (key === 'managedFields') items.sort((a, b) => `${a.operation}${a.manager}${a.subresource ?? ''}`.localeCompare(`${b.operation}${b.manager}${b.subresource ?? ''}`));
      return items;
    }
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalize(x, k)]));
    if (typeof v === 'string' && TS.test(v)) return '<time>';
    if (typeof v === 'string' && UUID.test(v)) return '<uid>';
    return v;
  }
  function normalizeFake(v: any, key = ''): any {
    if (Array.isArray(v)) return v.map((x) => normalizeFake(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalizeFake(x, k)]));
    if (key === 'resourceVersion' && typeof v === 'string') return shiftRv(v);
    if (key === 'continue' && typeof v === 'string') {
      const t = JSON.parse(Buffer.from(v, 'base64url').toString());
      return encodeContinue(t.rv === -1 ? -1 : t.rv - offset, t.start);
    }
    if (typeof v === 'string') return v.replace(/too old resource version: (\d+) \((\d+)\)/, (_m, a, b) => `too old resource version: ${shiftRv(a)} (${shiftRv(b)})`);
    return v;
  }

  async function send(f: Fixture, watch = false): Promise<Reply> {
    const r = f.request;
    const headers: Record<string, string> = { 'User-Agent': UA, 'Accept': 'application/json' };
    if (r.contentType) headers['Content-Type'] = r.contentType;
    const resp = await fetch(server.url + unshiftPath(r.path), { method: r.method, headers, body: r.body === null ? undefined : JSON.stringify(unshiftBody(r.body)) });
    const text = await resp.text();
    if (watch) return { code: resp.status, headers: resp.headers, body: undefined, lines: text.split('\n').filter(Boolean).map((l) => JSON.parse(l)) };
    return { code: resp.status, headers: resp.headers, body: text ? JSON.parse(text) : undefined };
  }

  async function step(name: string, watch = false): Promise<Reply> {
    const reply = await send(fixture(name), watch);
    replies.set(name, reply);
    return reply;
  }

  function expectLike(name: string): void {
    const f = fixture(name);
    const got = replies.get(name)!;
    expect({ name, code: got.code }).toEqual({ name, code: f.response.code });
    expect(got.headers.get('content-type')).toBe(f.response.headers['Content-Type']);
    expect(got.headers.get('warning') ?? undefined).toBe(f.response.headers.Warning);
    if (got.lines) expect(normalize(normalizeFake(got.lines))).toEqual(normalize(f.response.body));
    else expect(normalize(normalizeFake(got.body))).toEqual(normalize(f.response.body));
  }

  beforeAll(async () => {
    server = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 60_000, initialResourceVersion: 1000 });
    // The recording's watch cache started at 202: forget everything before the session.
    server.compact();
    offset = Number(server.resourceVersion) - 202;
    // Replay the whole recorded session in order; each test below checks one response.
    await step('create-201');
    await step('create-409-exists');
    await step('create-422-schema');
    await step('create-422-cel');
    await step('create-unknown-field');
    await step('create-unknown-field-strict');
    await step('get-404');
    await step('update-200');
    await step('update-409-conflict');
    await step('status-put-200');
    await step('merge-patch-200');
    await step('strategic-patch-415');
    await step('json-patch-test-422');
    await step('apply-patch-200');
    await step('apply-patch-create-201');
    await step('watch-410-gone', true);
    const fin = await fetch(`${server.url}/apis/db.example.com/v1/namespaces/default/sampledbs/a`, {
      method: 'PATCH', headers: { 'User-Agent': UA, 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { finalizers: ['example.com/snapshot'] } }),
    });
    expect(fin.status).toBe(200);
    await step('delete-with-finalizer-200');
    await step('get-terminating');
    await step('update-terminating-add-finalizer-422');
    await step('remove-finalizer-deletes');
    await step('get-after-finalizer-removed-404');
    for (const n of ['p0', 'p1', 'p2', 'p3', 'p4']) {
      const r = await fetch(`${server.url}/apis/db.example.com/v1/namespaces/default/sampledbs`, {
        method: 'POST', headers: { 'User-Agent': UA, 'Content-Type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: n }, spec: { replicas: 3, version: '16' } }),
      });
      expect(r.status).toBe(201);
    }
    await step('list-paged');
    await step('list-continue');
    server.compact(); // etcd compaction: continue tokens from before are expired
    await step('list-410-continue-expired');
    const post = (body: any) => fetch(`${server.url}/apis/db.example.com/v1/namespaces/default/sampledbs${body.metadata.name === 'w1' && body.spec.replicas === 2 ? '/w1' : ''}`, {
      method: body.spec.replicas === 2 ? 'PUT' : 'POST', headers: { 'User-Agent': UA, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
    });
    const watches = Promise.all([step('watch-events', true), step('watch-timeout-ends', true)]);
    await new Promise((r) => setTimeout(r, 100));
    const created: any = await (await post({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'w1' }, spec: { replicas: 3, version: '16' } })).json();
    await post({ ...created, spec: { replicas: 2, version: '16' } });
    await fetch(`${server.url}/apis/db.example.com/v1/namespaces/default/sampledbs/w1`, { method: 'DELETE', headers: { 'User-Agent': UA } });
    await watches;
  }, 20_000);

  afterAll(async () => {
    await server.close();
  });

  const names = ['create-201', 'create-409-exists', 'create-422-schema', 'create-422-cel', 'create-unknown-field', 'create-unknown-field-strict',
    'get-404', 'update-200', 'update-409-conflict', 'status-put-200', 'merge-patch-200', 'strategic-patch-415', 'json-patch-test-422',
    'apply-patch-200', 'apply-patch-create-201', 'delete-with-finalizer-200', 'get-terminating', 'update-terminating-add-finalizer-422',
    'remove-finalizer-deletes', 'get-after-finalizer-removed-404', 'list-paged', 'list-continue', 'list-410-continue-expired',
    'watch-events', 'watch-timeout-ends', 'watch-410-gone'];
  test.each(names)('%s', (name) => expectLike(name));

  test('every fixture in the folder is covered', () => {
    const files = readdirSync(FIXTURE_DIR).filter((f) => f.endsWith('.json'));
    expect(files.map((f) => f.replace(/\.json$/, '')).sort()).toEqual([...names].sort());
  });

  test('the object keeps one uid through its life', () => {
    const uids = ['create-201', 'update-200', 'status-put-200', 'merge-patch-200', 'apply-patch-200', 'delete-with-finalizer-200']
      .map((n) => replies.get(n)!.body.metadata.uid);
    expect(new Set(uids).size).toBe(1);
  });
});
