import { fooCrd } from './support';
import { RestClient } from '../../runtime/client';
import { isNotFound } from '../../runtime/errors';
import { addFinalizer, finalizer } from '../../runtime/finalizer';
import { describeRealApiServer } from '../envtest';

const FOO = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };
const NAME = 'samplecontroller.k8s.io/cleanup';

describeRealApiServer(
  'finalizer',
  (plane) => {
    let client: RestClient;

    afterEach(() => {
      client?.close();
    });

    test('add → delete → cleanup → remove → gone; another finalizer is kept until its owner removes it', async () => {
      client = RestClient.fromKubeConfig(plane().kubeConfig());
      const created = await client.create({
        apiVersion: FOO.apiVersion,
        kind: 'Foo',
        metadata: { name: 'f', namespace: 'default' },
        spec: { deploymentName: 'd', replicas: 1 },
      });

      let applied = 0;
      let cleaned = 0;
      const handlers = {
        apply: async () => {
          applied++;
        },
        cleanup: async () => {
          cleaned++;
        },
      };
      await finalizer(client, NAME, created, handlers, FOO);
      let live = await client.get(FOO, 'f', 'default');
      expect(live.metadata!.finalizers).toEqual([NAME]);
      expect(applied).toBe(1);

      // a stale add (resourceVersion changed meanwhile) is refused by the test op
      const stale = { ...created };
      await expect(addFinalizer(client, stale, 'other/x', FOO)).rejects.toMatchObject({ code: 422 });

      // another controller's finalizer
      live = await addFinalizer(client, live, 'other/x', FOO);
      expect(live.metadata!.finalizers).toEqual([NAME, 'other/x']);

      await client.delete(FOO, 'f', 'default');
      live = await client.get(FOO, 'f', 'default');
      expect(live.metadata!.deletionTimestamp).toBeDefined();
      await finalizer(client, NAME, live, handlers, FOO);
      expect(cleaned).toBe(1);
      live = await client.get(FOO, 'f', 'default');
      expect(live.metadata!.finalizers).toEqual(['other/x']);

      // running again is a no-op (idempotent): our finalizer is gone
      await finalizer(client, NAME, live, handlers, FOO);
      expect(cleaned).toBe(1);

      await client.patch(FOO, 'f', 'default', {
        type: 'json',
        ops: [
          { op: 'test', path: '/metadata/finalizers/0', value: 'other/x' },
          { op: 'remove', path: '/metadata/finalizers/0' },
        ],
      });
      expect(isNotFound(await client.get(FOO, 'f', 'default').catch((e) => e))).toBe(true);
    });
  },
  { shared: true, crds: [fooCrd()] },
);
