import { FakeApiServer, startFakeApiServer, waitFor } from '.';
import { sampleDbCrd } from './fixtures';
import { http } from './http';

const BASE = '/apis/db.example.com/v1/namespaces/default/sampledbs';
const sdb = (name: string, spec: any = {}, extra: any = {}) => ({ apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name, ...extra }, spec });

describe('fake apiserver: deletion', () => {
  let s: FakeApiServer;
  beforeEach(async () => {
    s = await startFakeApiServer({ crds: [sampleDbCrd()], bookmarkIntervalMs: 50 });
  });
  afterEach(async () => {
    await s.close();
  });

  describe('deletion', () => {
    test('DELETE without finalizers answers a Success Status; foreground without gc leaves the object terminating', async () => {
      await http(s.url, 'POST', BASE, sdb('a'));
      const del = await http(s.url, 'DELETE', `${BASE}/a`);
      expect(del.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'a', group: 'db.example.com', kind: 'sampledbs' } });
      await http(s.url, 'POST', BASE, sdb('b'));
      const fg = await http(s.url, 'DELETE', `${BASE}/b`, { propagationPolicy: 'Foreground' });
      expect(fg.body.metadata.finalizers).toEqual(['foregroundDeletion']);
      expect(fg.body.metadata.deletionTimestamp).toBeDefined();
    });

    test('delete preconditions: stale uid → 409', async () => {
      await http(s.url, 'POST', BASE, sdb('a'));
      const r = await http(s.url, 'DELETE', `${BASE}/a`, { preconditions: { uid: 'nope' } });
      expect(r.code).toBe(409);
      expect(r.body.message).toContain('Precondition failed: UID in precondition: nope');
    });

    test('deletecollection with a label selector', async () => {
      await http(s.url, 'POST', BASE, sdb('a', {}, { labels: { gone: 'yes' } }));
      await http(s.url, 'POST', BASE, sdb('b'));
      const r = await http(s.url, 'DELETE', `${BASE}?labelSelector=gone%3Dyes`);
      expect(r.body.items.map((i: any) => i.metadata.name)).toEqual(['a']);
      expect((await http(s.url, 'GET', BASE)).body.items.map((i: any) => i.metadata.name)).toEqual(['b']);
    });

    test('namespaces: missing → 404 on create, terminating → 403 Forbidden', async () => {
      const missing = await http(s.url, 'POST', '/apis/db.example.com/v1/namespaces/nope/sampledbs', sdb('a'));
      expect(missing.code).toBe(404);
      expect(missing.body.message).toBe('namespaces "nope" not found');
      await http(s.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'temp' } });
      const del = await http(s.url, 'DELETE', '/api/v1/namespaces/temp');
      expect(del.body.status.phase).toBe('Terminating');
      const r = await http(s.url, 'POST', '/apis/db.example.com/v1/namespaces/temp/sampledbs', sdb('a'));
      expect(r.code).toBe(403);
      expect(r.body.message).toContain('because it is being terminated');
    });

    test('the default, kube-system and kube-public namespaces cannot be deleted', async () => {
      const r = await http(s.url, 'DELETE', '/api/v1/namespaces/default');
      expect(r.code).toBe(403);
      expect(r.body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
    });

    test('namespaces: spec.finalizers change only through /finalize; emptying them deletes a terminating namespace', async () => {
      await http(s.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'fin' } });
      const ns = (await http(s.url, 'DELETE', '/api/v1/namespaces/fin')).body;
      const viaMain = await http(s.url, 'PUT', '/api/v1/namespaces/fin', { ...ns, spec: { finalizers: [] } });
      expect(viaMain.body.spec.finalizers).toEqual(['kubernetes']);
      const viaFinalize = await http(s.url, 'PUT', '/api/v1/namespaces/fin/finalize', { ...ns, spec: { finalizers: [] } });
      expect(viaFinalize.code).toBe(200);
      expect((await http(s.url, 'GET', '/api/v1/namespaces/fin')).code).toBe(404);
    });

    test('gc with namespaces: deleting a namespace deletes its contents, then the namespace', async () => {
      const g = await startFakeApiServer({ gc: true });
      try {
        await http(g.url, 'POST', '/api/v1/namespaces', { metadata: { name: 'tmp' } });
        await http(g.url, 'POST', '/api/v1/namespaces/tmp/configmaps', { metadata: { name: 'a' } });
        await http(g.url, 'DELETE', '/api/v1/namespaces/tmp');
        await waitFor(() => g.get('v1', 'Namespace', undefined, 'tmp') === undefined);
        expect(g.get('v1', 'ConfigMap', 'tmp', 'a')).toBeUndefined();
      } finally {
        await g.close();
      }
    });

    test('gc: deleting an owner deletes its dependents; without gc they stay', async () => {
      for (const gc of [true, false]) {
        const g = await startFakeApiServer({ gc });
        try {
          const owner = (await http(g.url, 'POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owner' } })).body;
          const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true };
          await http(g.url, 'POST', '/api/v1/namespaces/default/secrets', { metadata: { name: 'dep', ownerReferences: [ref] } });
          await http(g.url, 'DELETE', '/api/v1/namespaces/default/configmaps/owner');
          if (gc) await waitFor(() => g.get('v1', 'Secret', 'default', 'dep') === undefined);
          else {
            await new Promise((r) => setTimeout(r, 50));
            expect(g.get('v1', 'Secret', 'default', 'dep')).toBeDefined();
          }
        } finally {
          await g.close();
        }
      }
    });
  });
});
