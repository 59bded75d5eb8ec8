/**
 * What informer caches keep, on a real kube-apiserver: the default transform, projections, metadata-only
 * informers, and the manager's one set of cache options per kind.
 */
import { keepFields, LAST_APPLIED_ANNOTATION, stripForCache } from '../../runtime/cache-transform';
import { RestClient } from '../../runtime/client';
import { Informer } from '../../runtime/informer';
import { silentLogger } from '../../runtime/log';
import { Manager } from '../../runtime/manager';
import { KubeObject } from '../../runtime/resource';
import { describeRealApiServer } from '../envtest';
import { FAST_INFORMER, until } from './support';

const CM = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const T = 15_000;

describeRealApiServer(
  'Informer cache transforms',
  (plane) => {
    let ns: string;
    let client: RestClient;
    const informers: Informer[] = [];

    beforeAll(async () => {
      client = RestClient.fromKubeConfig(plane().kubeConfig());
      ns = await plane().createNamespace('cache-');
    });
    afterAll(async () => {
      for (const i of informers) await i.stop();
      client.close();
    });

    /** A ConfigMap as `kubectl apply` writes it: with its last-applied-configuration annotation, and managedFields. */
    async function applied(name: string, data: Record<string, string>): Promise<KubeObject> {
      const desired = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: ns, labels: { app: 'x' } },
        data,
      };
      const body = {
        ...desired,
        metadata: {
          ...desired.metadata,
          annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify(desired), keep: 'me' },
        },
      };
      const r = await plane().request(
        'POST',
        `/api/v1/namespaces/${ns}/configmaps?fieldManager=kubectl-client-side-apply`,
        body,
      );
      expect(r.code).toBe(201);
      return r.body;
    }

    async function informer(options: ConstructorParameters<typeof Informer>[2]): Promise<Informer> {
      const i = new Informer(client, CM, { ...FAST_INFORMER, namespace: ns, ...options }, silentLogger);
      informers.push(i);
      i.start();
      expect(await i.waitForSync(T)).toBe(true);
      return i;
    }

    test("by default the cache keeps neither managedFields nor kubectl's last-applied-configuration, from the list and from the watch", async () => {
      const listed = await applied('listed', { a: '1' });
      expect(listed.metadata?.managedFields).toBeDefined();
      const inf = await informer({});
      const seen: KubeObject[] = [];
      inf.addEventHandler({ onAdd: (o) => seen.push(o) });
      await applied('watched', { b: '2' });
      const watched = await until('watched in cache', () => inf.cache.get(`${ns}/watched`), T);
      for (const o of [inf.cache.get(`${ns}/listed`)!, watched]) {
        expect(o.metadata?.managedFields).toBeUndefined();
        expect(o.metadata?.annotations).toStrictEqual({ keep: 'me' });
        expect(o.metadata?.labels).toStrictEqual({ app: 'x' });
      }
      // handlers get the trimmed object, the same the cache holds
      expect(seen.find((o) => o.metadata?.name === 'watched')).toBe(watched);
    });

    test('a projection keeps only its fields (and the metadata); transform: false keeps the annotation', async () => {
      await applied('projected', { a: '1', b: '2' });
      const projected = await informer({ transform: keepFields({ data: { a: true } }) });
      expect(projected.cache.get(`${ns}/projected`)).toStrictEqual({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: expect.objectContaining({ name: 'projected', annotations: { keep: 'me' } }),
        data: { a: '1' },
      });
      const raw = await informer({ transform: false });
      expect(raw.cache.get(`${ns}/projected`)?.metadata?.annotations?.[LAST_APPLIED_ANNOTATION]).toBeDefined();
    });

    test("a metadata-only informer caches PartialObjectMetadata under the kind's apiVersion and kind, from the list and the watch", async () => {
      await applied('meta-listed', { big: 'x'.repeat(10_000) });
      const inf = await informer({ metadataOnly: true });
      await applied('meta-watched', { big: 'y'.repeat(10_000) });
      const watched = await until('metadata-only watch event', () => inf.cache.get(`${ns}/meta-watched`), T);
      for (const o of [inf.cache.get(`${ns}/meta-listed`)!, watched]) {
        expect(Object.keys(o).sort()).toStrictEqual(['apiVersion', 'kind', 'metadata']);
        expect([o.apiVersion, o.kind]).toStrictEqual(['v1', 'ConfigMap']);
        expect(o.metadata).toMatchObject({ labels: { app: 'x' }, annotations: { keep: 'me' } });
        expect(o.metadata?.managedFields).toBeUndefined();
      }
    });
  },
  { shared: true },
);

describeRealApiServer(
  'Manager cache options',
  (plane) => {
    test('one set of cache options per kind: the first use sets them, a later different one throws', () => {
      const manager = new Manager({ kubeConfig: plane().kubeConfig(), logger: silentLogger });
      const projection = { transform: keepFields({ data: true }) };
      const store = manager.getStore(CM, projection);
      expect(manager.getStore(CM)).toBeDefined();
      expect(manager.getStore(CM, projection)).toBeDefined();
      expect(() => manager.getStore(CM, { transform: stripForCache })).toThrow(
        /the informer of v1\/ConfigMap already exists with other cache options/,
      );
      expect(() => manager.getInformer(CM, { ...projection, metadataOnly: true })).toThrow(/other cache options/);
      expect(store).toBeDefined();
    });
  },
  { shared: true },
);
