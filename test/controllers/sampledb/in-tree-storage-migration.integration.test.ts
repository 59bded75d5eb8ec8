/**
 * The storage migration through Kubernetes' in-tree StorageVersionMigration, end to end on kube-apiserver and
 * kube-controller-manager v1.36.3 with `storagemigration.k8s.io/v1beta1` and the `StorageVersionMigrator` gate on
 * (1.36 serves it only with both: served-apis.ts): SampleDBs written at v1 by 0.1.0's CRD, the current CRD (v2
 * storage, conversion by this test's webhook server), then the migrator creates a StorageVersionMigration,
 * kube-controller-manager rewrites every object through the webhook, and the migrator trims `status.storedVersions`,
 * which the in-tree migration leaves as it was. Measured here: kube-controller-manager 1.36.3 marks the migration
 * Running but did not mark it Succeeded within four minutes in this setup (garbage collector and migrator controllers
 * only), so the Succeeded path (delete, then trim) is not covered by this suite yet.
 */
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { SAMPLEDB_CONVERSION } from '../../../controllers/sampledb/conversion';
import { CrdBaselines } from '../../../lib/evolution/crd-baseline';
import { RestClient } from '../../../runtime/client';
import { conversionHandler, MIGRATED_CONDITION, StorageVersionMigrator } from '../../../runtime/conversion';
import { staticCertificate } from '../../../runtime/webhook/certificate-source';
import { WebhookServer } from '../../../runtime/webhook/server';
import { describeApiServerVersion } from '../../envtest';

const CRD = 'sampledbs.database.example.com';
const V2 = { apiVersion: 'database.example.com/v2', kind: 'SampleDB', plural: 'sampledbs' };
const SVM = `/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations/v2.${CRD}`;
const GATE = 'StorageVersionMigrator=true';

describeApiServerVersion(
  'SampleDB storage migration by the in-tree StorageVersionMigration',
  '1.36',
  (plane) => {
    let ns: string;
    let server: WebhookServer | undefined;
    let client: RestClient;
    const path = (v: string, name = '') =>
      `/apis/database.example.com/${v}/namespaces/${ns}/sampledbs${name ? `/${name}` : ''}`;
    const crdNow = async () =>
      (await plane().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)).body;
    beforeAll(async () => {
      await plane().installCrds([new CrdBaselines('crd-baselines').read(CRD)!]);
      ns = await plane().createNamespace('in-tree-svm-');
      for (let i = 0; i < 5; i++) {
        const r = await plane().request('POST', path('v1'), {
          apiVersion: 'database.example.com/v1',
          kind: 'SampleDB',
          metadata: { name: `db-${i}` },
          spec: { version: '16', restoreFrom: `nightly-${i}` },
        });
        expect(r.code).toBe(201);
      }
      const hooks = await plane().installWebhooks({
        configurations: [sampleDbCrd(new Chart(new App(), 'crd')).toManifest()],
      });
      server = new WebhookServer({
        certificates: staticCertificate(hooks.certificate),
        bindAddress: hooks.bindAddress,
      }).conversion(conversionHandler([SAMPLEDB_CONVERSION]));
      await server.start();
      client = RestClient.fromKubeConfig(plane().kubeConfig());
      for (let i = 0; (await plane().request('GET', path('v2', 'db-0'))).code !== 200; i++) {
        if (i > 100) throw new Error('v2 never served');
        await new Promise((res) => setTimeout(res, 100));
      }
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
      client?.close();
    });

    test('the migrator starts a StorageVersionMigration (v1beta1 on 1.36.3), kube-controller-manager runs it, the migrator reports Migrating and trims nothing while it runs', async () => {
      expect((await crdNow()).status.storedVersions).toEqual(['v1', 'v2']);
      const migrator = new StorageVersionMigrator({ client, crdName: CRD, resource: V2 });

      const started = await migrator.runOnce();
      expect(started).toMatchObject({
        state: 'Migrating',
        inTree: `storagemigration.k8s.io/v1beta1 v2.${CRD}`,
        rewritten: 0,
      });
      const svm = (await plane().request('GET', SVM)).body;
      expect(svm.spec).toEqual({ resource: { group: 'database.example.com', resource: 'sampledbs' } });
      expect((await crdNow()).status.conditions.find((c: any) => c.type === MIGRATED_CONDITION)).toMatchObject({
        status: 'False',
        reason: 'Migrating',
        message: `kube-controller-manager rewrites every object stored as v1 as v2 (StorageVersionMigration v2.${CRD})`,
      });

      // kube-controller-manager picks it up
      let conditions: any[] = [];
      for (let i = 0; !conditions.some((c) => c.type === 'Running' && c.status === 'True'); i++) {
        if (i > 600) throw new Error(`kube-controller-manager never ran the migration: ${JSON.stringify(conditions)}`);
        await new Promise((res) => setTimeout(res, 100));
        conditions = (await plane().request('GET', SVM)).body.status?.conditions ?? [];
      }

      // while it runs: the same verdict, no write to the CRD, storedVersions kept
      const crd = await crdNow();
      expect(await migrator.runOnce()).toMatchObject({ state: 'Migrating' });
      const again = await crdNow();
      expect(again.metadata.resourceVersion).toBe(crd.metadata.resourceVersion);
      expect(again.status.storedVersions).toEqual(['v1', 'v2']);
    }, 120_000);
  },
  {
    apiServerFlags: ['--runtime-config=storagemigration.k8s.io/v1beta1=true', `--feature-gates=${GATE}`],
    controllerManager: ['garbage-collector-controller', 'storage-version-migrator-controller'],
    controllerManagerFlags: [`--feature-gates=${GATE}`],
  },
);
