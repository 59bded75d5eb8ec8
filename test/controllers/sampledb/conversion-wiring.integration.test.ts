/**
 * Conversion wired as the SampleDB binary wires it (setupConversion), on the real apiserver: the webhook server
 * serves from the operator's certificate Secret, the leader makes the CA and serving certificate and injects the
 * CA bundle into the CRD (replacing the one envtest put there), and migrates the v1-stored objects until
 * status.storedVersions is [v2].
 */
import { App, Chart } from 'cdk8s';
import { sampleDbCrd } from '../../../apps/sampledb/sampledb-crd';
import { SAMPLEDB_CONVERSION } from '../../../controllers/sampledb/conversion';
import { CrdBaselines } from '../../../lib';
import { RestClient } from '../../../runtime/client';
import { setupConversion } from '../../../runtime/conversion';
import { silentLogger } from '../../../runtime/log';
import { Manager } from '../../../runtime/manager';
import { SecretCertificateSource } from '../../../runtime/webhook/secret-certificate-source';
import { describeRealApiServer } from '../../envtest';

const CRD = 'sampledbs.database.example.com';
const V2 = { apiVersion: 'database.example.com/v2', kind: 'SampleDB', plural: 'sampledbs' };

describeRealApiServer(
  'SampleDB conversion wired as the binary does: own certificates, CA bundle injected, migration by the leader',
  (plane) => {
    test('from the 0.1.0 CRD with v1 objects to storedVersions [v2], every object readable at v1 as written', async () => {
      await plane().installCrds([new CrdBaselines('crd-baselines').read(CRD)!]);
      const ns = await plane().createNamespace('wired-');
      const written = ['nightly-1', 'nightly-2', undefined];
      for (const [i, restoreFrom] of written.entries()) {
        const r = await plane().request('POST', `/apis/database.example.com/v1/namespaces/${ns}/sampledbs`, {
          apiVersion: 'database.example.com/v1',
          kind: 'SampleDB',
          metadata: { name: `db-${i}` },
          spec: { version: '16', ...(restoreFrom ? { restoreFrom } : {}) },
        });
        expect(r.code).toBe(201);
      }
      const hooks = await plane().installWebhooks({
        configurations: [sampleDbCrd(new Chart(new App(), 'crd')).toManifest()],
      });
      const envtestBundle = Buffer.from(hooks.caPem).toString('base64');
      const opNs = await plane().createNamespace('op-');
      expect(
        (
          await plane().request('POST', `/api/v1/namespaces/${opNs}/secrets`, {
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: 'op-webhook-certs' },
            type: 'Opaque',
          })
        ).code,
      ).toBe(201);

      const kubeConfig = plane().kubeConfig();
      const certificates = new SecretCertificateSource({
        client: RestClient.fromKubeConfig(kubeConfig),
        namespace: opNs,
        secretName: 'op-webhook-certs',
        reloadIntervalMs: 500,
      });
      const manager = new Manager({
        kubeConfig,
        logger: silentLogger,
        metricsBindAddress: '0',
        healthProbeBindAddress: '0',
        webhookServer: { certificates, bindAddress: hooks.bindAddress },
      });
      setupConversion(manager, {
        namespace: opNs,
        serviceName: 'op-webhook',
        secretName: 'op-webhook-certs',
        bindAddress: hooks.bindAddress,
        certificates,
        conversions: [{ conversion: SAMPLEDB_CONVERSION, resource: V2 }],
        ipAddresses: ['127.0.0.1'],
        migrationIntervalMs: 1000,
      });
      await manager.start();
      try {
        const crdNow = async () =>
          (await plane().request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`)).body;
        for (let i = 0; ; i++) {
          const crd = await crdNow();
          const injected = crd.spec.conversion.webhook.clientConfig.caBundle !== envtestBundle;
          if (injected && JSON.stringify(crd.status.storedVersions) === '["v2"]') break;
          if (i > 600) {
            throw new Error(
              `not migrated: caBundle injected ${injected}, storedVersions ${JSON.stringify(crd.status.storedVersions)}, conditions ${JSON.stringify(crd.status.conditions)}`,
            );
          }
          await new Promise((r) => setTimeout(r, 100));
        }
        const secret = (await plane().request('GET', `/api/v1/namespaces/${opNs}/secrets/op-webhook-certs`)).body;
        expect((await crdNow()).spec.conversion.webhook.clientConfig.caBundle).toBe(secret.data['ca-bundle.crt']);
        for (const [i, restoreFrom] of written.entries()) {
          const v1 = await plane().request('GET', `/apis/database.example.com/v1/namespaces/${ns}/sampledbs/db-${i}`);
          expect([v1.code, v1.body.spec.restoreFrom]).toEqual([200, restoreFrom]);
        }
        const metrics = await manager.metrics.registry.metrics();
        expect(metrics).toContain(`storage_version_migration_complete{crd="${CRD}"} 1`);
        expect(metrics).toMatch(/controller_runtime_webhook_requests_total\{webhook="\/convert",code="200"\} [1-9]/);
      } finally {
        await manager.stop();
      }
    });
  },
  { shared: true },
);
