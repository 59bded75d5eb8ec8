/**
 * The storage migration through Kubernetes' in-tree StorageVersionMigration, end to end on kube-apiserver and
 * kube-controller-manager v1.36.3 with `storagemigration.k8s.io/v1beta1` and the `StorageVersionMigrator` gate on
 * (1.36 serves it only with both: served-apis.ts): SampleDBs written at v1 by 0.1.0's CRD, the current CRD (v2
 * storage, conversion by this test's webhook server), then the migrator, with exactly the RBAC the SampleDB chart
 * derives from its contract, creates a StorageVersionMigration; kube-controller-manager rewrites every object
 * through the webhook and, measured here, trims `status.storedVersions` itself; the migrator's next pass deletes the
 * finished migration and reports the CRD migrated. Each step is an Event about the CRD, written by the runtime's
 * recorder under the chart's RBAC (the SampleDB operator's events grant is in `default`, where a cluster-scoped
 * object's Events are).
 *
 * kube-controller-manager starts the rewrite only once its garbage collector's cache of the resource has seen a
 * resourceVersion at least as new as the one it recorded on the migration ("GC cache is not up to date" in its log);
 * nothing in this test writes SampleDBs on its own, so the test writes one, as an operator's status update would in
 * a cluster (storage-migrator.ts says what happens without any write).
 */
import { App, Chart, Testing } from 'cdk8s';
import { SampleDbChart } from '../../../apps/sampledb/sampledb-chart';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { SAMPLEDB_CONVERSION } from '../../../controllers/sampledb/conversion';
import { CrdBaselines } from '../../../lib/evolution/crd-baseline';
import { RestClient } from '../../../runtime/client';
import {
  conversionHandler,
  MIGRATED_CONDITION,
  MIGRATION_GENERATION_ANNOTATION,
  StorageVersionMigrator,
} from '../../../runtime/conversion';
import { EventRecorder } from '../../../runtime/events';
import { staticCertificate } from '../../../runtime/webhook/certificate-source';
import { WebhookServer } from '../../../runtime/webhook/server';
import { describeApiServerVersion } from '../../envtest';

const CRD = 'sampledbs.database.example.com';
const V2 = { apiVersion: 'database.example.com/v2', kind: 'SampleDB', plural: 'sampledbs' };
const SVM = `/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations/v2.${CRD}`;
const GATE = 'StorageVersionMigrator=true';
const COUNT = 5;

/** Polls `probe` every 100 ms until it returns a value, or fails after `seconds` saying what it waited for. */
async function eventually<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + seconds * 1000; ;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${seconds} s`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

describeApiServerVersion(
  'SampleDB storage migration by the in-tree StorageVersionMigration',
  '1.36',
  (plane) => {
    let ns: string;
    let server: WebhookServer | undefined;
    let client: RestClient;
    let recorder: EventRecorder;
    const path = (v: string, name = '') =>
      `/apis/database.example.com/${v}/namespaces/${ns}/sampledbs${name ? `/${name}` : ''}`;
    const crdNow = async () =>
      (await plane().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)).body;
    const resourceVersions = async () =>
      Object.fromEntries(
        (await plane().request('GET', path('v2'))).body.items.map((o: any) => [
          o.metadata.name,
          o.metadata.resourceVersion,
        ]),
      );
    beforeAll(async () => {
      await plane().installCrds([new CrdBaselines('crd-baselines').read(CRD)!]);
      ns = await plane().createNamespace('in-tree-svm-');
      for (let i = 0; i < COUNT; i++) {
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
      // the operator's identity with the chart's cluster-wide conversion RBAC (derived from its contract), nothing else
      const rbac = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb')).filter(
        (m) =>
          ['Namespace', 'ServiceAccount'].includes(m.kind) ||
          (/^ClusterRole(Binding)?$/.test(m.kind) && m.metadata.name === 'sampledb-operator-conversion') ||
          (/^Role(Binding)?$/.test(m.kind) && m.metadata.name === 'sampledb-operator-manager'),
      );
      expect(rbac.map((m) => m.kind).sort()).toEqual([
        'ClusterRole',
        'ClusterRoleBinding',
        'Namespace',
        'Role',
        'RoleBinding',
        'ServiceAccount',
      ]);
      await plane().applyObjects(rbac);
      const sa = rbac.find((m) => m.kind === 'ServiceAccount')!.metadata;
      client = RestClient.fromKubeConfig(plane().kubeConfig(await plane().serviceAccount(sa.namespace, sa.name)));
      recorder = new EventRecorder({
        client,
        reportingController: 'storage-version-migration',
        reportingInstance: 'test',
      });
      await eventually('v2 served', 10, async () =>
        (await plane().request('GET', path('v2', 'db-0'))).code === 200 ? true : undefined,
      );
    }, 120_000);

    /** kube-controller-manager admits the migration (Running) and records the resourceVersion it migrates up to. */
    const admitted = () =>
      eventually('kube-controller-manager to record the migration resourceVersion', 60, async () => {
        const s = (await plane().request('GET', SVM)).body.status;
        return s?.resourceVersion && s.conditions?.some((c: any) => c.type === 'Running' && c.status === 'True')
          ? s
          : undefined;
      });
    /** One write to one SampleDB (see the file's comment). */
    const touch = async (value: string) => {
      const touched = await plane().request(
        'PATCH',
        path('v2', 'db-0'),
        { metadata: { annotations: { 'example.com/touched': value } } },
        { contentType: 'application/merge-patch+json' },
      );
      expect(touched.code).toBe(200);
    };
    /** Passes of the migrator until one ends in `state`; every one before says Migrating. */
    const passesUntil = async (migrator: StorageVersionMigrator, state: string) => {
      const states: string[] = [];
      const last = await eventually(`the migrator to report ${state}`, 90, async () => {
        const r = await migrator.runOnce();
        states.push(r.state);
        return r.state === state ? r : undefined;
      });
      expect(new Set(states.slice(0, -1))).toEqual(new Set(states.length > 1 ? ['Migrating'] : []));
      return last;
    };

    /** How often each reason of the migration's Events about the CRD occurred so far (a series counts its repeats). */
    const eventCounts = async (): Promise<Record<string, number>> => {
      const counts: Record<string, number> = {};
      for (const e of (await plane().request('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).body.items) {
        if (e.regarding?.name !== CRD || e.reportingController !== 'storage-version-migration') continue;
        counts[e.reason] = (counts[e.reason] ?? 0) + (e.series?.count ?? 1);
      }
      return counts;
    };
    /** The Events recorded since `before`, once they reach `expected` (the recorder writes after the pass returned). */
    const eventsSince = async (before: Record<string, number>, expected: Record<string, number>) => {
      let added: Record<string, number> = {};
      for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((res) => setTimeout(res, 100))) {
        const now = await eventCounts();
        added = Object.fromEntries(
          Object.entries(now)
            .map(([reason, n]) => [reason, n - (before[reason] ?? 0)])
            .filter(([, n]) => n !== 0),
        );
        if (JSON.stringify(added) === JSON.stringify(expected)) break;
      }
      return added;
    };

    afterAll(async () => {
      await server?.stop();
      client?.close();
    });

    test('the migrator starts a StorageVersionMigration (v1beta1 on 1.36.3), trims nothing while kube-controller-manager runs it, and reports Migrated once it Succeeded; kube-controller-manager rewrote every object and trimmed storedVersions itself', async () => {
      const crd0 = await crdNow();
      expect(crd0.status.storedVersions).toEqual(['v1', 'v2']);
      const events0 = await eventCounts();
      const migrator = new StorageVersionMigrator({ client, crdName: CRD, resource: V2, recorder });

      const started = await migrator.runOnce();
      expect(started).toMatchObject({
        state: 'Migrating',
        inTree: `storagemigration.k8s.io/v1beta1 v2.${CRD}`,
        rewritten: 0,
      });
      const svm = (await plane().request('GET', SVM)).body;
      expect(svm.spec).toEqual({ resource: { group: 'database.example.com', resource: 'sampledbs' } });
      expect(svm.metadata.annotations[MIGRATION_GENERATION_ANNOTATION]).toBe(String(crd0.metadata.generation));
      expect((await crdNow()).status.conditions.find((c: any) => c.type === MIGRATED_CONDITION)).toMatchObject({
        status: 'False',
        reason: 'Migrating',
        message: `kube-controller-manager rewrites every object stored as v1 as v2 (StorageVersionMigration v2.${CRD})`,
      });

      await admitted();

      // while it runs: the same verdict, no write to the CRD, storedVersions kept
      const crd1 = await crdNow();
      expect(await migrator.runOnce()).toMatchObject({ state: 'Migrating' });
      const crd2 = await crdNow();
      expect(crd2.metadata.resourceVersion).toBe(crd1.metadata.resourceVersion);
      expect(crd2.status.storedVersions).toEqual(['v1', 'v2']);

      // one write to the resource (see the file's comment), then kube-controller-manager rewrites the others
      const before = await resourceVersions();
      await touch('by the test');
      const done = await passesUntil(migrator, 'Migrated');
      expect(done).toMatchObject({ inTree: `storagemigration.k8s.io/v1beta1 v2.${CRD}`, storedVersionsBefore: ['v2'] });

      const crd3 = await crdNow();
      expect(crd3.status.storedVersions).toEqual(['v2']);
      // kube-controller-manager 1.36.3 trims storedVersions itself, as the owner of the field says
      const owners = crd3.metadata.managedFields
        .filter((f: any) => f.subresource === 'status' && f.fieldsV1?.['f:status']?.['f:storedVersions'])
        .map((f: any) => f.manager);
      expect(owners).toEqual(['migration-runner-controller']);
      expect(crd3.status.conditions.find((c: any) => c.type === 'StorageMigrating')).toMatchObject({
        status: 'False',
        reason: 'MigrationSucceeded',
        message: 'The migration has succeeded and the stored versions have been updated',
      });
      expect(crd3.status.conditions.find((c: any) => c.type === MIGRATED_CONDITION)).toMatchObject({
        status: 'True',
        reason: 'Migrated',
        message: `every object is stored as v2 (by the in-tree StorageVersionMigration v2.${CRD}, whose end trimmed status.storedVersions); status.storedVersions is [v2]`,
      });
      // the finished migration is deleted, and every object other than the one written was rewritten by kcm
      expect((await plane().request('GET', SVM)).code).toBe(404);
      const after = await resourceVersions();
      for (let i = 1; i < COUNT; i++) expect(Number(after[`db-${i}`])).toBeGreaterThan(Number(before[`db-${i}`]));

      // steady state: nothing to do, no write
      expect(await migrator.runOnce()).toMatchObject({ state: 'UpToDate' });
      expect((await crdNow()).metadata.resourceVersion).toBe(crd3.metadata.resourceVersion);
      // one Event per step, none for the passes that found it running
      const expected = { StorageMigrationStarted: 1, StorageMigrated: 1 };
      expect(await eventsSince(events0, expected)).toEqual(expected);
    }, 180_000);

    test('the CRD changes while kube-controller-manager runs the migration: it does not trim, the migrator deletes the migration and starts a new one, which trims', async () => {
      // storedVersions as after a storage version change again (the objects are stored as v2 by now)
      const reset = await crdNow();
      expect(
        (
          await plane().request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}/status`, {
            ...reset,
            status: { ...reset.status, storedVersions: ['v1', 'v2'] },
          })
        ).code,
      ).toBe(200);
      const migrator = new StorageVersionMigrator({ client, crdName: CRD, resource: V2, recorder });
      const events0 = await eventCounts();
      expect(await migrator.runOnce()).toMatchObject({ state: 'Migrating' });
      const generation = (await crdNow()).metadata.generation;
      expect((await plane().request('GET', SVM)).body.metadata.annotations[MIGRATION_GENERATION_ANNOTATION]).toBe(
        String(generation),
      );
      await admitted();

      // a change to the CRD's spec (a new generation), then the write that lets kube-controller-manager run
      const crd = await crdNow();
      const v2 = crd.spec.versions.findIndex((v: any) => v.name === 'v2');
      const changed = await plane().request(
        'PATCH',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`,
        [{ op: 'add', path: `/spec/versions/${v2}/schema/openAPIV3Schema/description`, value: 'changed' }],
        { contentType: 'application/json-patch+json' },
      );
      expect(changed.code).toBe(200);
      expect(changed.body.metadata.generation).toBe(generation + 1);
      await touch('during a CRD change');

      const restarted = await eventually(
        'kube-controller-manager to finish and the migrator to restart',
        90,
        async () => {
          await migrator.runOnce();
          const c = (await crdNow()).status.conditions.find((x: any) => x.type === MIGRATED_CONDITION);
          return /^the CRD changed/.test(c.message) ? c : undefined;
        },
      );
      expect(restarted).toMatchObject({
        status: 'False',
        reason: 'Migrating',
        message: `the CRD changed (generation ${generation} to ${generation + 1}) while StorageVersionMigration v2.${CRD} ran; starting a new one`,
      });
      const after = await crdNow();
      expect(after.status.storedVersions).toEqual(['v1', 'v2']);
      expect(after.status.conditions.find((c: any) => c.type === 'StorageMigrating')).toMatchObject({
        reason: 'MigrationSucceeded',
        message:
          'The migration has succeeded but the stored versions have not been updated due to a generation mismatch',
      });
      expect((await plane().request('GET', SVM)).code).toBe(404);

      // the next pass starts a new migration at the new generation, which kube-controller-manager finishes and trims
      expect(await migrator.runOnce()).toMatchObject({ state: 'Migrating' });
      expect((await plane().request('GET', SVM)).body.metadata.annotations[MIGRATION_GENERATION_ANNOTATION]).toBe(
        String(generation + 1),
      );
      await admitted();
      await touch('after the CRD change');
      await passesUntil(migrator, 'Migrated');
      expect((await crdNow()).status.storedVersions).toEqual(['v2']);
      const expected = { StorageMigrationStarted: 2, StorageMigrationRestarted: 1, StorageMigrated: 1 };
      expect(await eventsSince(events0, expected)).toEqual(expected);
    }, 180_000);
  },
  {
    apiServerFlags: ['--runtime-config=storagemigration.k8s.io/v1beta1=true', `--feature-gates=${GATE}`],
    controllerManager: ['garbage-collector-controller', 'storage-version-migrator-controller'],
    controllerManagerFlags: [`--feature-gates=${GATE}`],
  },
);
