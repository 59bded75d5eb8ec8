import { defineContract, ControllerBuilder, Manager, parseWatchNamespace, resourceRef } from '../../runtime';
import { describeRealApiServer } from '../envtest';
import { FAST_INFORMER, testLogger, until } from './support';

const CONFIGMAP = resourceRef({ apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' });
// `WATCH_NAMESPACE=team-a,team-b` on a real kube-apiserver, as a ServiceAccount that holds a Role in
// team-a and team-b only: any cluster-wide or wrong-namespace list would be refused (403) and the
// informers would never sync.
describeRealApiServer(
  'two watch namespaces, with Roles only',
  (plane) => {
    let manager: Manager | undefined;
    const admin = (method: string, path: string, body?: unknown) => plane().request(method, path, body);

    beforeAll(async () => {
      for (const ns of ['team-a', 'team-b', 'team-c']) await plane().createNamespace(ns);
      for (const ns of ['team-a', 'team-b']) {
        const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}`;
        expect(
          (
            await admin('POST', `${rbac}/roles`, {
              metadata: { name: 'ctl' },
              rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
            })
          ).code,
        ).toBe(201);
        expect(
          (
            await admin('POST', `${rbac}/rolebindings`, {
              metadata: { name: 'ctl' },
              roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'ctl' },
              subjects: [{ kind: 'ServiceAccount', name: 'ctl', namespace: 'team-a' }],
            })
          ).code,
        ).toBe(201);
      }
    }, 120_000);
    afterAll(async () => {
      await manager?.stop();
    }, 60_000);

    test('one informer per namespace: objects of both namespaces reconciled and stored, none of a third', async () => {
      const identity = await plane().serviceAccount('team-a', 'ctl');
      for (const ns of ['team-a', 'team-b', 'team-c']) {
        expect(
          (
            await admin('POST', `/api/v1/namespaces/${ns}/configmaps`, {
              metadata: { name: 'settings' },
              data: { team: ns },
            })
          ).code,
        ).toBe(201);
      }

      const contract = defineContract({ watches: [CONFIGMAP] });
      manager = new Manager({
        kubeConfig: plane().kubeConfig(identity),
        namespaces: parseWatchNamespace('team-a,team-b'),
        contract,
        logger: testLogger(),
        informer: FAST_INFORMER,
      });
      const reconciled = new Set<string>();
      new ControllerBuilder(manager, { name: 'settings' }).for(CONFIGMAP).complete({
        reconcile: async ({ namespace, name }) => {
          reconciled.add(`${namespace}/${name}`);
        },
      });
      const store = manager.getStore(CONFIGMAP);
      await manager.start();

      await until(
        'both namespaces reconciled',
        () => reconciled.has('team-a/settings') && reconciled.has('team-b/settings'),
        30_000,
      );
      expect(store.get({ namespace: 'team-a', name: 'settings' })?.data).toEqual({ team: 'team-a' });
      expect(store.get('team-b/settings')?.data).toEqual({ team: 'team-b' });
      expect(store.get('team-c/settings')).toBeUndefined();
      expect(
        store
          .list()
          .map((cm) => cm.metadata.namespace)
          .sort(),
      ).toEqual(['team-a', 'team-b']);
      expect(store.list('team-b').map((cm) => cm.metadata.name)).toEqual(['settings']);

      // a change in either namespace reaches the controller through its namespace's watch
      expect((await admin('POST', '/api/v1/namespaces/team-b/configmaps', { metadata: { name: 'late' } })).code).toBe(
        201,
      );
      await until('new object in team-b reconciled', () => reconciled.has('team-b/late'), 30_000);
      expect([...reconciled].filter((k) => k.startsWith('team-c/'))).toEqual([]);
    }, 90_000);

    test('the read-your-writes client returns once the store shows the write', async () => {
      const own = new Manager({
        kubeConfig: plane().kubeConfig(),
        namespace: 'team-c',
        logger: testLogger(),
        informer: FAST_INFORMER,
      });
      try {
        const store = own.getStore(CONFIGMAP);
        await own.start();
        await until('cache synced', () => store.get('team-c/settings'));
        for (let i = 0; i < 5; i++) {
          const written = await own.readYourWritesClient.patch(CONFIGMAP, 'settings', 'team-c', {
            type: 'merge',
            body: { data: { round: String(i) } },
          });
          // no waiting here: the client already did
          expect(store.get('team-c/settings')?.metadata.resourceVersion).toBe(written.metadata?.resourceVersion);
          expect(store.get('team-c/settings')?.data).toEqual({ team: 'team-c', round: String(i) });
        }
      } finally {
        await own.stop();
      }
    }, 60_000);
  },
  { shared: true },
);
