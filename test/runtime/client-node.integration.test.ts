/** What the runtime relies on from @kubernetes/client-node 1.4, against a real kube-apiserver. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { requireEsm } from '../../runtime/client-node';
import { describeRealApiServer } from '../envtest';
import { KUBE_APISERVER_FIXTURES } from '../fixtures/recorded/paths';
import { until } from '../runtime/support';

const k8s = requireEsm<typeof import('@kubernetes/client-node')>(
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a literal require, so that bundlers see the module
  () => require('@kubernetes/client-node'),
  '@kubernetes/client-node',
);
/** The SampleDB CRD the recorded kube-apiserver fixtures use. */
const sampleDbCrd = () => parse(readFileSync(join(KUBE_APISERVER_FIXTURES, 'crd.yaml'), 'utf8'));
const waitFor = (cond: () => boolean) => until('condition', cond, 15_000);

describeRealApiServer(
  '@kubernetes/client-node 1.4',
  (plane) => {
    const server = { kubeConfig: () => plane().kubeConfig() };
    let SDB = { group: 'db.example.com', version: 'v1', plural: 'sampledbs', namespace: '' };
    let ns = '';
    beforeEach(async () => {
      ns = await plane().createNamespace('client-node-');
      SDB = { ...SDB, namespace: ns };
    });

    test('CustomObjectsApi create/get/list/patch/delete', async () => {
      const api = server.kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      const created: any = await api.createNamespacedCustomObject({
        ...SDB,
        body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'a' }, spec: { version: '16' } },
      });
      expect(created.spec).toEqual({ replicas: 1, version: '16' }); // default applied
      expect(created.metadata.generation).toBe(1);

      const got: any = await api.getNamespacedCustomObject({ ...SDB, name: 'a' });
      expect(got.metadata.uid).toBe(created.metadata.uid);

      const patched: any = await api.patchNamespacedCustomObject(
        { ...SDB, name: 'a', body: { spec: { replicas: 3 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      expect(patched.spec.replicas).toBe(3);
      expect(patched.metadata.generation).toBe(2);

      const status: any = await api.patchNamespacedCustomObjectStatus(
        { ...SDB, name: 'a', body: { status: { replicas: 3 }, spec: { replicas: 5 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      expect(status.status).toEqual({ replicas: 3 });
      expect(status.spec.replicas).toBe(3); // spec ignored on /status
      expect(status.metadata.generation).toBe(2);

      const list: any = await api.listNamespacedCustomObject({ ...SDB });
      expect(list.kind).toBe('SampleDBList');
      expect(list.items.map((i: any) => i.metadata.name)).toEqual(['a']);

      await api.deleteNamespacedCustomObject({ ...SDB, name: 'a' });
      const err: any = await api.getNamespacedCustomObject({ ...SDB, name: 'a' }).catch((e: unknown) => e);
      expect(err.code).toBe(404);
      expect(JSON.parse(err.body).reason).toBe('NotFound');
    });

    test('ApiException carries code and Status body for 409 and 422', async () => {
      const api = server.kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      const body = {
        apiVersion: 'db.example.com/v1',
        kind: 'SampleDB',
        metadata: { name: 'x' },
        spec: { replicas: 2 },
      };
      await api.createNamespacedCustomObject({ ...SDB, body });
      const dup: any = await api.createNamespacedCustomObject({ ...SDB, body }).catch((e: unknown) => e);
      expect(dup.code).toBe(409);
      expect(JSON.parse(dup.body).reason).toBe('AlreadyExists');
      const bad: any = await api
        .createNamespacedCustomObject({ ...SDB, body: { ...body, metadata: { name: 'y' }, spec: { replicas: 0 } } })
        .catch((e: unknown) => e);
      expect(bad.code).toBe(422);
      expect(JSON.parse(bad.body).details.causes[0].field).toBe('spec.replicas');
    });

    test('AppsV1Api deployments get server defaults and a status subresource', async () => {
      const apps = server.kubeConfig().makeApiClient(k8s.AppsV1Api);
      const dep = await apps.createNamespacedDeployment({
        namespace: ns,
        body: {
          metadata: { name: 'web', labels: { app: 'web' } },
          spec: {
            selector: { matchLabels: { app: 'web' } },
            template: {
              metadata: { labels: { app: 'web' } },
              spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
            },
          },
        },
      });
      expect(dep.spec?.replicas).toBe(1);
      expect(dep.spec?.template.spec?.containers[0].imagePullPolicy).toBe('IfNotPresent');
      expect(dep.metadata?.generation).toBe(1);

      dep.spec!.replicas = 2;
      const updated = await apps.replaceNamespacedDeployment({ name: 'web', namespace: ns, body: dep });
      expect(updated.metadata?.generation).toBe(2);

      // status written through /status like the deployment controller would
      const st = await plane().request(
        'PATCH',
        `/apis/apps/v1/namespaces/${ns}/deployments/web/status`,
        { status: { availableReplicas: 2, replicas: 2, readyReplicas: 2 } },
        { contentType: 'application/merge-patch+json' },
      );
      expect(st.code).toBe(200);
      const read = await apps.readNamespacedDeploymentStatus({ name: 'web', namespace: ns });
      expect(read.status?.availableReplicas).toBe(2);
      expect(read.metadata?.generation).toBe(2);

      const list = await apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'app=web' });
      expect(list.items.map((d) => d.metadata?.name)).toEqual(['web']);
      const none = await apps.listNamespacedDeployment({ namespace: ns, labelSelector: 'app!=web' });
      expect(none.items).toHaveLength(0);

      const stale: any = await apps
        .replaceNamespacedDeployment({ name: 'web', namespace: ns, body: dep })
        .catch((e: unknown) => e);
      expect(stale.code).toBe(409);
    });

    test('Watch receives ADDED/MODIFIED/DELETED, resuming from a list resourceVersion', async () => {
      const api = server.kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      await api.createNamespacedCustomObject({
        ...SDB,
        body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'before' }, spec: {} },
      });
      const list: any = await api.listNamespacedCustomObject({ ...SDB });
      const events: Array<[string, string, string]> = [];
      const watch = new k8s.Watch(server.kubeConfig());
      let doneErr: unknown = 'not-called';
      const ctrl = await watch.watch(
        `/apis/db.example.com/v1/namespaces/${ns}/sampledbs`,
        { resourceVersion: list.metadata.resourceVersion, allowWatchBookmarks: true },
        (phase, obj) => events.push([phase, obj.metadata.name ?? '', obj.metadata.resourceVersion]),
        (err) => {
          doneErr = err;
        },
      );
      await api.createNamespacedCustomObject({
        ...SDB,
        body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'w1' }, spec: { replicas: 3 } },
      });
      await api.patchNamespacedCustomObject(
        { ...SDB, name: 'w1', body: { spec: { replicas: 2 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await api.deleteNamespacedCustomObject({ ...SDB, name: 'w1' });
      await waitFor(() => events.some((e) => e[0] === 'DELETED'));
      const changes = events.filter((e) => e[0] !== 'BOOKMARK');
      expect(changes.map((e) => `${e[0]} ${e[1]}`)).toEqual(['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
      expect(changes.map((e) => Number(e[2]))).toEqual([...changes.map((e) => Number(e[2]))].sort((a, b) => a - b));
      ctrl.abort();
      await waitFor(() => doneErr !== 'not-called');
    });

    test('a watch from a compacted resourceVersion (history compacted, apiserver restarted) reports 410 through the done/error path', async () => {
      const api = server.kubeConfig().makeApiClient(k8s.CustomObjectsApi);
      const created: any = await api.createNamespacedCustomObject({
        ...SDB,
        body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'a' }, spec: {} },
      });
      const old = created.metadata.resourceVersion;
      await api.patchNamespacedCustomObject(
        { ...SDB, name: 'a', body: { spec: { replicas: 2 } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch),
      );
      await plane().compactEtcd();
      await plane().restartApiServer();
      // right after the restart the watch cache is still initializing: the apiserver answers 429 (retry later)
      let events: any[] = [];
      for (let attempt = 0; ; attempt++) {
        events = [];
        let doneErr: any = 'not-called';
        await new k8s.Watch(server.kubeConfig()).watch(
          `/apis/db.example.com/v1/namespaces/${ns}/sampledbs`,
          { resourceVersion: Number(old) - 1 },
          (phase, obj) => events.push({ phase, obj }),
          (err) => {
            doneErr = err;
          },
        );
        await waitFor(() => doneErr !== 'not-called');
        if (events.length || !/Too Many Requests/.test(String(doneErr)) || attempt > 50) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(events).toHaveLength(1);
      expect(events[0].phase).toBe('ERROR');
      expect(events[0].obj.code).toBe(410);
    });

    test('KubernetesObjectApi resolves plurals through discovery for built-ins and custom resources', async () => {
      const objects = k8s.KubernetesObjectApi.makeApiClient(server.kubeConfig());
      const db: any = await objects.create({
        apiVersion: 'db.example.com/v1',
        kind: 'SampleDB',
        metadata: { name: 'generic', namespace: ns },
        spec: { replicas: 2 },
      } as any);
      expect(db.metadata.uid).toBeDefined();
      const read: any = await objects.read({
        apiVersion: 'db.example.com/v1',
        kind: 'SampleDB',
        metadata: { name: 'generic', namespace: ns },
      });
      expect(read.spec.replicas).toBe(2);
      const applied: any = await objects.patch(
        {
          apiVersion: 'db.example.com/v1',
          kind: 'SampleDB',
          metadata: { name: 'generic', namespace: ns },
          spec: { replicas: 4 },
        } as any,
        undefined,
        undefined,
        'op',
        true,
        k8s.PatchStrategy.ServerSideApply,
      );
      expect(applied.spec.replicas).toBe(4);
      expect(applied.metadata.managedFields.map((m: any) => `${m.manager}/${m.operation}`)).toContain('op/Apply');
      const cm: any = await objects.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cm', namespace: ns },
        data: { a: 'b' },
      } as any);
      expect(cm.data).toEqual({ a: 'b' });
      await objects.delete({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: ns } });
      expect((await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/cm`)).code).toBe(404);
    });

    test('Lease updates with a stale resourceVersion conflict (leader election safety)', async () => {
      const coord = server.kubeConfig().makeApiClient(k8s.CoordinationV1Api);
      const lease = await coord.createNamespacedLease({
        namespace: ns,
        body: { metadata: { name: 'leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } },
      });
      // MicroTime fields need V1MicroTime: a plain Date serialises with milliseconds, which the apiserver cannot parse
      const plainDate: any = await coord
        .replaceNamespacedLease({
          name: 'leader',
          namespace: ns,
          body: { ...lease, spec: { ...lease.spec, renewTime: new Date() } },
        })
        .catch((e: unknown) => e);
      expect(plainDate.code).toBe(400);
      expect(JSON.parse(plainDate.body).message).toContain('as "2006-01-02T15:04:05.000000Z07:00"');
      const renewed = await coord.replaceNamespacedLease({
        name: 'leader',
        namespace: ns,
        body: { ...lease, spec: { ...lease.spec, holderIdentity: 'a', renewTime: new k8s.V1MicroTime() } },
      });
      expect(Number(renewed.metadata?.resourceVersion)).toBeGreaterThan(Number(lease.metadata?.resourceVersion));
      const stolen: any = await coord
        .replaceNamespacedLease({
          name: 'leader',
          namespace: ns,
          body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b' } },
        })
        .catch((e: unknown) => e);
      expect(stolen.code).toBe(409);
      expect(JSON.parse(stolen.body).message).toContain(
        'leases.coordination.k8s.io "leader": the object has been modified',
      );
    });

    test('makeInformer lists then watches', async () => {
      const kc = server.kubeConfig();
      const api = kc.makeApiClient(k8s.CustomObjectsApi);
      await api.createNamespacedCustomObject({
        ...SDB,
        body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'one' }, spec: {} },
      });
      const informer = k8s.makeInformer(
        kc,
        `/apis/db.example.com/v1/namespaces/${ns}/sampledbs`,
        () => api.listNamespacedCustomObject({ ...SDB }) as any,
      );
      const seen: string[] = [];
      informer.on('add', (o: any) => seen.push(`add ${o.metadata.name}`));
      informer.on('update', (o: any) => seen.push(`update ${o.metadata.name}`));
      await informer.start();
      await api.createNamespacedCustomObject({
        ...SDB,
        body: { apiVersion: 'db.example.com/v1', kind: 'SampleDB', metadata: { name: 'two' }, spec: {} },
      });
      await waitFor(() => seen.includes('add two'));
      expect(seen).toEqual(['add one', 'add two']);
      await informer.stop();
    });
  },
  { crds: [sampleDbCrd()] },
);
