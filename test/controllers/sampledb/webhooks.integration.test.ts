import { Testing } from 'cdk8s';
import { sampleDb, sampleDbCrdManifest, startSampleDbManager, Started } from './harness';
import { SampleDbChart } from '../../../apps/sampledb/sampledb-chart';
import { SAMPLEDB_CONTRACT } from '../../../controllers/sampledb/contract';
import { ANNOTATION_DEFAULT_STORAGE, ANNOTATION_DEFAULT_STORAGE_CLASS } from '../../../controllers/sampledb/webhooks';
import { staticCertificate } from '../../../runtime/webhook/certificate-source';
import { describeRealApiServer } from '../../envtest';

/** The chart's webhook configurations, exactly as synth writes them (envtest repoints them at this test's server). */
function chartWebhookConfigurations(watchNamespaces: string[]): object[] {
  return Testing.synth(new SampleDbChart(Testing.app(), 'sampledb', { watchNamespaces })).filter((o) =>
    /WebhookConfiguration$/.test(o.kind),
  );
}

describeRealApiServer(
  "SampleDB admission webhooks (the chart's configurations, the controller binary's handlers)",
  (plane) => {
    let started: Started;
    let ns: string;
    let other: string;
    const path = (name = '') => `/apis/database.example.com/v2/namespaces/${ns}/sampledbs${name ? `/${name}` : ''}`;
    const create = (name: string, spec: Record<string, unknown>) =>
      plane().request('POST', path(), sampleDb(name, spec, ns));

    beforeAll(async () => {
      ns = await plane().createNamespace('admission-');
      other = await plane().createNamespace('admission-bad-');
      const hooks = await plane().installWebhooks({ configurations: chartWebhookConfigurations([ns, other]) });
      await plane().request(
        'PATCH',
        `/api/v1/namespaces/${ns}`,
        {
          metadata: {
            annotations: { [ANNOTATION_DEFAULT_STORAGE]: '5Gi', [ANNOTATION_DEFAULT_STORAGE_CLASS]: 'fast-ssd' },
          },
        },
        { contentType: 'application/merge-patch+json' },
      );
      started = await startSampleDbManager(plane(), {
        contract: SAMPLEDB_CONTRACT,
        namespaces: [ns],
        webhookServer: { certificates: staticCertificate(hooks.certificate), bindAddress: hooks.bindAddress },
      });
      // The configurations select the watched namespaces (minus the operator's own and kube-system).
      for (let i = 0; ; i++) {
        const r = await plane().request('POST', `${path()}?dryRun=All`, sampleDb('probe', {}, ns));
        if (r.code === 201 && r.body.spec.storage === '5Gi') break;
        if (i > 100) throw new Error(`webhooks never took effect: ${r.code} ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    });
    afterAll(() => started?.manager.stop());

    test("a restoreFrom naming a SampleDB that does not exist is denied with the webhook's message", async () => {
      const r = await create('copy', { restoreFrom: { sampleDB: 'no-such-db', backup: 'nothing' } });
      expect(r.code).toBe(403);
      expect(r.body.message).toBe(
        `admission webhook "validate.sampledbs.database.example.com" denied the request: spec.restoreFrom.sampleDB: SampleDB 'no-such-db' does not exist in namespace '${ns}', and no backup volume no-such-db-backups of a deleted one remains`,
      );
      expect((await plane().request('GET', path('copy'))).code).toBe(404);
    });

    test("a valid SampleDB is admitted and defaulted from the namespace's annotations; explicit values are kept", async () => {
      const r = await create('plain', {});
      expect(r.code).toBe(201);
      expect(r.body.spec).toMatchObject({ version: '16.4', storage: '5Gi', storageClassName: 'fast-ssd' });
      const stored = await plane().request('GET', path('plain'));
      expect(stored.body.spec).toMatchObject({ storage: '5Gi', storageClassName: 'fast-ssd' });
      const explicit = await create('explicit', { storage: '20Gi', storageClassName: 'slow' });
      expect(explicit.body.spec).toMatchObject({ storage: '20Gi', storageClassName: 'slow' });
      // the controller builds the volumes from the defaulted spec
      const sts = await (async () => {
        for (let i = 0; i < 100; i++) {
          const got = await plane().request('GET', `/apis/apps/v1/namespaces/${ns}/statefulsets/plain`);
          if (got.code === 200) return got.body;
          await new Promise((res) => setTimeout(res, 100));
        }
        throw new Error('no StatefulSet');
      })();
      expect(sts.spec.volumeClaimTemplates[0].spec).toMatchObject({
        storageClassName: 'fast-ssd',
        resources: { requests: { storage: '5Gi' } },
      });
    });

    test('restoring from an existing SampleDB: an unknown backup is denied, listing what it has (no schedule)', async () => {
      const r = await create('from-plain', { restoreFrom: { sampleDB: 'plain', backup: 'plain-backup-1' } });
      expect(r.code).toBe(403);
      expect(r.body.message).toMatch(
        /spec\.restoreFrom\.backup: SampleDB 'plain' has no backup 'plain-backup-1' \(it has made no backup yet\)$/,
      );
    });

    test('a deleted source whose backup volume remains is admitted with a warning', async () => {
      await plane().request('POST', `/api/v1/namespaces/${ns}/persistentvolumeclaims`, {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'gone-backups' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      });
      let r = await create('reborn', { restoreFrom: { sampleDB: 'gone', backup: 'gone-final-snapshot' } });
      for (let i = 0; r.code === 403 && i < 50; i++) {
        // the informer sees the PVC a moment later
        await new Promise((res) => setTimeout(res, 100));
        r = await create('reborn', { restoreFrom: { sampleDB: 'gone', backup: 'gone-final-snapshot' } });
      }
      expect(r.code).toBe(201);
      expect(r.headers.warning).toContain("SampleDB 'gone' is deleted; its backup volume gone-backups remains");
    });

    test('an update that leaves restoreFrom alone is not re-checked; a changed one is', async () => {
      const patch = (body: object) =>
        plane().request('PATCH', path('reborn'), body, { contentType: 'application/merge-patch+json' });
      expect((await patch({ spec: { backupRetention: 3, backupSchedule: '0 2 * * *' } })).code).toBe(200);
      const changed = await patch({ spec: { restoreFrom: { sampleDB: 'never-was', backup: 'x' } } });
      expect(changed.code).toBe(403);
      expect(changed.body.message).toContain("SampleDB 'never-was' does not exist");
    });

    test('a malformed namespace annotation is reported as the annotation', async () => {
      await plane().request(
        'PATCH',
        `/api/v1/namespaces/${other}`,
        { metadata: { annotations: { [ANNOTATION_DEFAULT_STORAGE]: 'lots' } } },
        { contentType: 'application/merge-patch+json' },
      );
      // this manager watches only `ns`: its Role-scoped informers do not matter to the defaulting handler, which reads the Namespace by name
      const r = await plane().request(
        'POST',
        `/apis/database.example.com/v2/namespaces/${other}/sampledbs`,
        sampleDb('x', {}, other),
      );
      expect(r.code).toBe(400);
      expect(r.body.message).toContain(
        `annotation ${ANNOTATION_DEFAULT_STORAGE}: must be a quantity like 10Gi, got 'lots'`,
      );
    });

    test('a namespace the operator does not watch is not intercepted (its caches know nothing there)', async () => {
      const unwatched = await plane().createNamespace('admission-unwatched-');
      const r = await plane().request(
        'POST',
        `/apis/database.example.com/v2/namespaces/${unwatched}/sampledbs`,
        sampleDb('y', { restoreFrom: { sampleDB: 'no-such-db', backup: 'x' } }, unwatched),
      );
      expect(r.code).toBe(201);
      expect(r.body.spec.storage).toBeUndefined();
    });

    test('controller-runtime webhook metrics of both paths', async () => {
      expect(
        await started.manager.metrics.value('controller_runtime_webhook_requests_total', {
          webhook: '/validate-database-example-com-v2-sampledb',
          code: '200',
        }),
      ).toBeGreaterThan(3);
      expect(
        await started.manager.metrics.value('controller_runtime_webhook_requests_total', {
          webhook: '/mutate-database-example-com-v2-sampledb',
          code: '200',
        }),
      ).toBeGreaterThan(3);
    });
  },
  { shared: true, crds: [sampleDbCrdManifest()] },
);
