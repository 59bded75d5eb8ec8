/**
 * SampleDB 0.1.0 → current on the real apiserver: the released CRD (crd-baselines/) with v1 objects whose
 * restoreFrom is a string, then the current CRD (v1 + v2, v2 storage, conversion by webhook) pointed at this
 * test's webhook server (envtest installWebhooks), serving SAMPLEDB_CONVERSION; then the storage migration.
 */
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { SAMPLEDB_CONVERSION } from '../../../controllers/sampledb/conversion';
import { CrdBaselines } from '../../../lib';
import { RestClient } from '../../../runtime/client';
import {
  conversionHandler,
  MIGRATED_CONDITION,
  MIGRATION_ANNOTATION,
  StorageVersionMigrator,
} from '../../../runtime/conversion';
import { EventRecorder } from '../../../runtime/events';
import { KubeObject } from '../../../runtime/resource';
import { staticCertificate } from '../../../runtime/webhook/certificate-source';
import { WebhookServer } from '../../../runtime/webhook/server';
import { describeRealApiServer } from '../../envtest';

const CRD = 'sampledbs.database.example.com';
const V1 = { apiVersion: 'database.example.com/v1', kind: 'SampleDB', plural: 'sampledbs' };
const V2 = { apiVersion: 'database.example.com/v2', kind: 'SampleDB', plural: 'sampledbs' };

function currentCrd(): object {
  // as synthesized: conversion by the operator's webhook Service (envtest repoints it at this test's server)
  return sampleDbCrd(new Chart(new App(), 'crd')).toManifest();
}

describeRealApiServer('SampleDB upgrade from 0.1.0: conversion webhook and storage migration', (plane) => {
  let ns: string;
  let server: WebhookServer | undefined;
  let bindAddress: string;
  let certificate: { cert: string; key: string };
  let client: RestClient;
  const written = new Map<string, string | undefined>(); // name → restoreFrom written at v1 before the upgrade

  const path = (v: string, name = '') =>
    `/apis/database.example.com/${v}/namespaces/${ns}/sampledbs${name ? `/${name}` : ''}`;
  const get = async (v: string, name: string) => plane().request('GET', path(v, name));
  const startServer = async () => {
    server = new WebhookServer({ certificates: staticCertificate(certificate), bindAddress }).conversion(
      conversionHandler([SAMPLEDB_CONVERSION]),
    );
    await server.start();
  };
  const crdNow = async () =>
    (await plane().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)).body;

  beforeAll(async () => {
    const released = new CrdBaselines('crd-baselines').read(CRD)!;
    await plane().installCrds([released]);
    ns = await plane().createNamespace('upgrade-');
    for (let i = 0; i < 7; i++) {
      const name = `db-${i}`;
      const restoreFrom = i % 3 === 2 ? undefined : `nightly-${i}`;
      const r = await plane().request('POST', path('v1'), {
        apiVersion: V1.apiVersion,
        kind: 'SampleDB',
        metadata: { name },
        spec: { version: '16', ...(restoreFrom ? { restoreFrom } : {}) },
      });
      expect(r.code).toBe(201);
      written.set(name, restoreFrom);
    }
    const hooks = await plane().installWebhooks({ configurations: [currentCrd()] });
    expect(hooks.installed).toEqual([`CustomResourceDefinition/${CRD}`]);
    ({ bindAddress, certificate } = hooks);
    await startServer();
    client = RestClient.fromKubeConfig(plane().kubeConfig());
    // the apiserver reloads the CRD's storage on its own watch: wait until v2 reads go through the webhook
    for (let i = 0; ; i++) {
      const r = await get('v2', 'db-0');
      if (r.code === 200) break;
      if (i > 100) throw new Error(`v2 never served: ${r.code} ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  });

  afterAll(async () => {
    await server?.stop();
    client?.close();
  });

  test('v1 is still served with the 0.1.0 schema, v2 is the storage version, both versions are stored until migrated', async () => {
    const crd = await crdNow();
    expect(
      crd.spec.versions.map((v: any) => [
        v.name,
        v.served,
        v.storage,
        v.schema.openAPIV3Schema.properties.spec.properties.restoreFrom.type,
      ]),
    ).toEqual([
      ['v1', true, false, 'string'],
      ['v2', true, true, 'object'],
    ]);
    expect(crd.spec.conversion.strategy).toBe('Webhook');
    expect(crd.status.storedVersions).toEqual(['v1', 'v2']);
  });

  test('every object written before the upgrade reads back at v1 exactly as written and at v2 converted', async () => {
    for (const [name, restoreFrom] of written) {
      const v1 = await get('v1', name);
      expect(v1.code).toBe(200);
      expect(v1.body.spec.restoreFrom).toBe(restoreFrom);
      expect(v1.body.metadata.annotations?.[SAMPLEDB_CONVERSION.annotation]).toBeUndefined();
      const v2 = await get('v2', name);
      expect(v2.code).toBe(200);
      expect(v2.body.spec.restoreFrom).toEqual(restoreFrom === undefined ? undefined : { backup: restoreFrom });
    }
    const list = await plane().request('GET', path('v2'));
    expect(list.body.items.map((o: KubeObject) => o.metadata?.name).sort()).toEqual([...written.keys()].sort());
  });

  test('v1 writes after the upgrade work; what v1 cannot express survives a v1 update', async () => {
    const created = await plane().request('POST', path('v1'), {
      apiVersion: V1.apiVersion,
      kind: 'SampleDB',
      metadata: { name: 'late' },
      spec: { version: '16', restoreFrom: 'b-late' },
    });
    expect(created.code).toBe(201);
    expect(created.body.spec.restoreFrom).toBe('b-late');
    expect((await get('v2', 'late')).body.spec.restoreFrom).toEqual({ backup: 'b-late' });
    written.set('late', 'b-late');

    const v2 = await plane().request('POST', path('v2'), {
      apiVersion: V2.apiVersion,
      kind: 'SampleDB',
      metadata: { name: 'other' },
      spec: { version: '16', synchronous: true, restoreFrom: { sampleDB: 'db-0', backup: 'b-1' } },
    });
    expect(v2.code).toBe(201);
    const asV1 = (await get('v1', 'other')).body;
    expect(asV1.spec.restoreFrom).toBeUndefined();
    expect(asV1.metadata.annotations[SAMPLEDB_CONVERSION.annotation]).toContain('sampleDB');
    // a v1 client's read-modify-write (PUT) of what it can see
    asV1.spec.replicas = 2;
    const put = await plane().request('PUT', path('v1', 'other'), asV1);
    expect(put.code).toBe(200);
    const back = (await get('v2', 'other')).body;
    expect(back.spec).toMatchObject({
      replicas: 2,
      synchronous: true,
      restoreFrom: { sampleDB: 'db-0', backup: 'b-1' },
    });
    expect(back.metadata.annotations?.[SAMPLEDB_CONVERSION.annotation]).toBeUndefined();
  });

  test('the storage migration is resumable, rewrites every object, then leaves storedVersions with only v2; a second pass writes nothing', async () => {
    // interrupted after the first page (3 objects): the continue token is kept on the CRD
    const abort = new AbortController();
    let replaced = 0;
    const interrupting = {
      ...clientMethods(client),
      replace: async (o: KubeObject, opts?: { fieldManager?: string }) => {
        const r = await client.replace(o, opts);
        if (++replaced === 3) abort.abort();
        return r;
      },
    };
    await expect(
      new StorageVersionMigrator({ client: interrupting, crdName: CRD, resource: V2, pageSize: 3 }).runOnce(
        abort.signal,
      ),
    ).rejects.toThrow('aborted');
    const progress = JSON.parse((await crdNow()).metadata.annotations[MIGRATION_ANNOTATION]);
    expect(progress).toMatchObject({ storageVersion: 'v2', rewritten: 3 });
    expect((await crdNow()).status.conditions.find((c: any) => c.type === MIGRATED_CONDITION)).toMatchObject({
      status: 'False',
      reason: 'Migrating',
    });

    const recorder = new EventRecorder({
      client,
      reportingController: 'storage-version-migration',
      reportingInstance: 't',
    });
    const migrator = new StorageVersionMigrator({ client, crdName: CRD, resource: V2, pageSize: 3, recorder });
    const result = await migrator.runOnce();
    expect(result).toMatchObject({
      state: 'Migrated',
      storageVersion: 'v2',
      storedVersionsBefore: ['v1', 'v2'],
      resumed: true,
      failed: 0,
      rewritten: written.size + 1,
    });
    const crd = await crdNow();
    expect(crd.status.storedVersions).toEqual(['v2']);
    expect(crd.metadata.annotations?.[MIGRATION_ANNOTATION]).toBeUndefined();
    expect(crd.status.conditions.find((c: any) => c.type === MIGRATED_CONDITION)).toMatchObject({
      status: 'True',
      reason: 'Migrated',
    });

    const before = (await plane().request('GET', path('v2'))).body.items.map(
      (o: KubeObject) => o.metadata?.resourceVersion,
    );
    expect(await migrator.runOnce()).toMatchObject({ state: 'UpToDate', rewritten: 0 });
    const after = (await plane().request('GET', path('v2'))).body.items.map(
      (o: KubeObject) => o.metadata?.resourceVersion,
    );
    expect(after).toEqual(before);
    expect((await crdNow()).metadata.resourceVersion).toBe(crd.metadata.resourceVersion);
    // the pass's start and end as Events about the CRD (the interrupted pass had no recorder), none for the steady pass
    const notes = async () =>
      (await plane().request('GET', '/apis/events.k8s.io/v1/namespaces/default/events')).body.items
        .filter((e: any) => e.regarding?.name === CRD && e.reportingController === 'storage-version-migration')
        .map((e: any) => `${e.type} ${e.reason}: ${e.note}`)
        .sort();
    for (const end = Date.now() + 10_000; (await notes()).length < 2 && Date.now() < end;) {
      await new Promise((res) => setTimeout(res, 100));
    }
    expect(await notes()).toEqual([
      `Normal StorageMigrated: ${written.size + 1} object(s) rewritten as v2; status.storedVersions trimmed to [v2]`,
      'Normal StorageMigrationStarted: rewriting every object stored as v1 as v2, resuming after 3',
    ]);
  });

  test("a condition another controller writes on the CRD while the migrator reports survives the migrator's retry after the conflict", async () => {
    // storedVersions as after a storage version change again (the objects are stored as v2 by now)
    const reset = await crdNow();
    const stale = { ...reset, status: { ...reset.status, storedVersions: ['v1', 'v2'] } };
    expect(
      (await plane().request('PUT', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}/status`, stale))
        .code,
    ).toBe(200);
    // the first status write of the pass meets a condition written in between, as kube-controller-manager's
    // StorageMigrating is while a migration starts: the apiserver answers 409, and the migrator retries
    const other = { type: 'ExampleOtherController', status: 'True', reason: 'WrittenMeanwhile', message: 'kept' };
    let injected = false;
    const racing = {
      ...clientMethods(client),
      replaceStatus: async (o: KubeObject, opts?: { fieldManager?: string }) => {
        if (!injected) {
          injected = true;
          const now = await crdNow();
          const withOther = {
            ...now,
            status: {
              ...now.status,
              conditions: [
                ...now.status.conditions,
                { ...other, lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
              ],
            },
          };
          expect(
            (
              await plane().request(
                'PUT',
                `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}/status`,
                withOther,
              )
            ).code,
          ).toBe(200);
        }
        return client.replaceStatus(o, opts);
      },
    };
    const result = await new StorageVersionMigrator({ client: racing, crdName: CRD, resource: V2 }).runOnce();
    expect(injected).toBe(true);
    expect(result).toMatchObject({ state: 'Migrated', storedVersionsBefore: ['v1', 'v2'], failed: 0 });
    const crd = await crdNow();
    expect(crd.status.storedVersions).toEqual(['v2']);
    expect(crd.status.conditions.find((c: any) => c.type === other.type)).toMatchObject(other);
    expect(crd.status.conditions.find((c: any) => c.type === MIGRATED_CONDITION)).toMatchObject({ status: 'True' });
  });

  test('with the conversion webhook down: v2 (the storage version) keeps working, v1 fails with the webhook error, nothing is lost', async () => {
    await server!.stop();
    server = undefined;
    const v2 = await get('v2', 'db-0');
    expect(v2.code).toBe(200);
    const v1 = await get('v1', 'db-0');
    expect(v1.code).toBe(500);
    expect(v1.body.message).toMatch(/conversion webhook for database\.example\.com\/v2, Kind=SampleDB failed/);
    const write = await plane().request('POST', path('v1'), {
      apiVersion: V1.apiVersion,
      kind: 'SampleDB',
      metadata: { name: 'during-outage' },
      spec: { version: '16' },
    });
    expect(write.code).toBe(500);
    await startServer();
    for (const [name, restoreFrom] of written) expect((await get('v1', name)).body.spec.restoreFrom).toBe(restoreFrom);
  });

  test('after an apiserver restart every object reads back at both versions', async () => {
    await plane().restartApiServer();
    for (const [name, restoreFrom] of written) {
      expect((await get('v1', name)).body.spec.restoreFrom).toBe(restoreFrom);
      expect((await get('v2', name)).body.spec.restoreFrom).toEqual(
        restoreFrom === undefined ? undefined : { backup: restoreFrom },
      );
    }
    expect((await crdNow()).status.storedVersions).toEqual(['v2']);
  });
});

function clientMethods(c: RestClient) {
  return {
    listPage: c.listPage.bind(c),
    get: c.get.bind(c),
    create: c.create.bind(c),
    delete: c.delete.bind(c),
    replace: c.replace.bind(c),
    replaceStatus: c.replaceStatus.bind(c),
    patch: c.patch.bind(c),
  };
}
