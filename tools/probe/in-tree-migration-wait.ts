/**
 * How long kube-controller-manager 1.36.3's in-tree StorageVersionMigration waits on a kind nobody writes to, and how
 * soon it finishes after one write: SampleDBs written at v1 by 0.1.0's CRD, the current CRD (v2 storage, conversion by
 * a local webhook server), a StorageVersionMigration created, then `QUIET_SECONDS` with no write (its state and kcm's
 * "GC cache is not up to date" log lines counted), then one write to one object and the time until it Succeeded.
 * Writes bench/latest/in-tree-migration-wait.json (`npx tsx tools/probe/in-tree-migration-wait.ts`);
 * docs/storage-migration.md cites it.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../apps/sampledb/sampledb-crd';
import { SAMPLEDB_CONVERSION } from '../../controllers/sampledb/conversion';
import { CrdBaselines } from '../../lib/evolution/crd-baseline';
import { conversionHandler } from '../../runtime/conversion';
import { ControlPlane } from '../../runtime/envtest';
import { staticCertificate } from '../../runtime/webhook/certificate-source';
import { WebhookServer } from '../../runtime/webhook/server';

const OUT = join(__dirname, '../../bench/latest/in-tree-migration-wait.json');
const CRD = 'sampledbs.database.example.com';
const SVMS = '/apis/storagemigration.k8s.io/v1beta1/storageversionmigrations';
const GATE = '--feature-gates=StorageVersionMigrator=true';
const QUIET_SECONDS = 80;
const OBJECTS = 5;

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

async function main(): Promise<void> {
  const bin = execFileSync('bash', [join(__dirname, '../../../shared/k8s/install.sh'), '--version', '1.36'], {
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop()!;
  const plane = await ControlPlane.start({
    assetsDir: bin,
    apiServerFlags: ['--runtime-config=storagemigration.k8s.io/v1beta1=true', GATE],
    controllerManager: ['garbage-collector-controller', 'storage-version-migrator-controller'],
    controllerManagerFlags: [GATE, '-v=2'],
  });
  let server: WebhookServer | undefined;
  try {
    await plane.installCrds([new CrdBaselines('crd-baselines').read(CRD)!]);
    const ns = await plane.createNamespace('svm-wait-');
    const path = (v: string, name = '') =>
      `/apis/database.example.com/${v}/namespaces/${ns}/sampledbs${name ? `/${name}` : ''}`;
    for (let i = 0; i < OBJECTS; i++) {
      const r = await plane.request('POST', path('v1'), {
        apiVersion: 'database.example.com/v1',
        kind: 'SampleDB',
        metadata: { name: `db-${i}` },
        spec: { version: '16', restoreFrom: `nightly-${i}` },
      });
      if (r.code !== 201) throw new Error(`create db-${i}: ${JSON.stringify(r.body)}`);
    }
    const hooks = await plane.installWebhooks({
      configurations: [sampleDbCrd(new Chart(new App(), 'crd')).toManifest()],
    });
    server = new WebhookServer({
      certificates: staticCertificate(hooks.certificate),
      bindAddress: hooks.bindAddress,
    }).conversion(conversionHandler([SAMPLEDB_CONVERSION]));
    await server.start();
    while ((await plane.request('GET', path('v2', 'db-0'))).code !== 200) await sleep(100);

    const created = await plane.request('POST', SVMS, {
      apiVersion: 'storagemigration.k8s.io/v1beta1',
      kind: 'StorageVersionMigration',
      metadata: { name: `v2.${CRD}` },
      spec: { resource: { group: 'database.example.com', resource: 'sampledbs' } },
    });
    if (created.code !== 201) throw new Error(`create the migration: ${JSON.stringify(created.body)}`);
    const status = async () => (await plane.request('GET', `${SVMS}/v2.${CRD}`)).body.status ?? {};
    const holds = (s: any, type: string) =>
      (s.conditions ?? []).some((c: any) => c.type === type && c.status === 'True');
    await sleep(QUIET_SECONDS * 1000);
    const quiet = await status();
    const requeues = plane
      .logs('kube-controller-manager')
      .split('\n')
      .filter((l) => /GC cache is not up to date/.test(l));

    const touched = Date.now();
    const patched = await plane.request(
      'PATCH',
      path('v2', 'db-0'),
      { metadata: { annotations: { 'example.com/touched': 'probe' } } },
      { contentType: 'application/merge-patch+json' },
    );
    if (patched.code !== 200) throw new Error(`write db-0: ${JSON.stringify(patched.body)}`);
    let done = await status();
    while (!holds(done, 'Succeeded') && !holds(done, 'Failed') && Date.now() - touched < 120_000) {
      await sleep(100);
      done = await status();
    }
    const crd = (await plane.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)).body;
    const result = {
      generatedBy: 'npx tsx tools/probe/in-tree-migration-wait.ts',
      loadAverage1m: Math.round(loadavg()[0] * 100) / 100,
      serverVersion: (await plane.request('GET', '/version')).body.gitVersion,
      objects: OBJECTS,
      quietSeconds: QUIET_SECONDS,
      afterQuiet: {
        running: holds(quiet, 'Running'),
        succeeded: holds(quiet, 'Succeeded'),
        recordedResourceVersion: quiet.resourceVersion,
        gcCacheNotUpToDateLogLines: requeues.length,
        lastLogLine: requeues[requeues.length - 1]?.replace(/^.*?\] /, ''),
      },
      afterOneWrite: {
        succeeded: holds(done, 'Succeeded'),
        failed: holds(done, 'Failed'),
        seconds: Math.round((Date.now() - touched) / 100) / 10,
        storedVersions: crd.status.storedVersions,
      },
    };
    writeFileSync(OUT, JSON.stringify(result, null, 2) + '\n');
    console.log(JSON.stringify(result, null, 2));
  } finally {
    await server?.stop();
    await plane.stop();
  }
}

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
