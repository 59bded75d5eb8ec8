/**
 * The labelling webhook of a shard ring (runtime/shard-label-webhook.ts) behind the real kube-apiserver: two members
 * with `key: 'namespace'` and labels; one serves `shardLabelDefaulting` as a MutatingWebhookConfiguration for
 * ConfigMap creates. Each ConfigMap created by a user carries its owner's label in the create response, lands in
 * its owner's cache only, and was never patched by the assigner (no managedFields entry of its field manager).
 * Then the user's path: an `Operator` chart's own MutatingWebhookConfiguration and RBAC, two members started by
 * `startControllerBinary` with the Deployment's arguments under the chart's ServiceAccount.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Chart, Testing } from 'cdk8s';
import { Operator } from '../../lib';
import { startControllerBinary } from '../../runtime/cli';
import { RestClient } from '../../runtime/client';
import { defineContract } from '../../runtime/contract';
import { ControllerBuilder } from '../../runtime/controller';
import { InstalledWebhooks } from '../../runtime/envtest';
import { Manager } from '../../runtime/manager';
import { shardLabelDefaulting } from '../../runtime/shard-label-webhook';
import { shardLabel } from '../../runtime/shard-labels';
import { rendezvousOwner } from '../../runtime/sharding';
import { staticCertificate } from '../../runtime/webhook/certificate-source';
import { WebhookServer } from '../../runtime/webhook/server';
import { describeRealApiServer } from '../envtest';
import { FAST_INFORMER, testLogger, until } from './support';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const RING = 'slw';
const TEST_LABEL = 'shard-label-webhook-test';

describeRealApiServer(
  'the shard labelling webhook',
  (plane) => {
    const members: Manager[] = [];
    let server: WebhookServer | undefined;
    let admin: RestClient;
    let namespaces: string[];
    let ringNamespace: string;
    let hooks: InstalledWebhooks;

    beforeAll(async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      ringNamespace = await plane().createNamespace('slw-ring-');
      namespaces = [];
      for (let i = 0; i < 12; i++) namespaces.push(await plane().createNamespace('slw-', { [TEST_LABEL]: 'true' }));
      hooks = await plane().installWebhooks({
        configurations: [
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'MutatingWebhookConfiguration',
            metadata: { name: 'slw-shard-label' },
            webhooks: [
              {
                name: 'shard-label.slw.test.example.com',
                rules: [
                  {
                    apiGroups: [''],
                    apiVersions: ['v1'],
                    operations: ['CREATE'],
                    resources: ['configmaps'],
                    scope: 'Namespaced',
                  },
                ],
                namespaceSelector: { matchLabels: { [TEST_LABEL]: 'true' } },
                sideEffects: 'None',
                admissionReviewVersions: ['v1'],
                failurePolicy: 'Ignore',
                timeoutSeconds: 5,
                clientConfig: {
                  service: { name: 'op-webhook', namespace: 'op-system', path: '/label-shard-slw', port: 443 },
                },
              },
            ],
          },
        ],
      });
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      for (const m of members) await m.stop();
      admin?.close();
    }, 60_000);

    /** The apiserver picks a webhook configuration up through an informer: waits until a dry-run create is labelled. */
    async function webhookLabels(namespace: string, label: string): Promise<void> {
      await until(
        'the webhook labels creates',
        async () => {
          const r = await plane().request('POST', `/api/v1/namespaces/${namespace}/configmaps?dryRun=All`, {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { name: 'probe' },
          });
          return r.code === 201 && r.body.metadata.labels?.[label] !== undefined;
        },
        30_000,
        100,
      );
    }

    async function member(): Promise<Manager> {
      const manager = new Manager({
        kubeConfig: plane().kubeConfig(),
        namespaces,
        logger: testLogger(),
        informer: FAST_INFORMER,
        gracefulShutdownTimeoutMs: 5000,
        sharding: {
          ring: RING,
          key: 'namespace',
          namespace: ringNamespace,
          leaseDurationMs: 3000,
          renewDeadlineMs: 2000,
          retryPeriodMs: 300,
        },
      });
      new ControllerBuilder(manager, { name: 'noop' }).for(CONFIGMAP).complete({ reconcile: async () => undefined });
      await manager.start();
      members.push(manager);
      return manager;
    }

    test("a user's create carries its owner's label; it lands in its owner's cache only; the assigner never patched it", async () => {
      const [a, b] = [await member(), await member()];
      await until(
        'both members act on a 2-member view',
        () => [a, b].every((m) => m.shard!.members.length === 2),
        30_000,
      );
      server = new WebhookServer({
        certificates: staticCertificate(hooks.certificate),
        bindAddress: hooks.bindAddress,
      }).defaulting('/label-shard-slw', shardLabelDefaulting(a));
      await server.start();
      await webhookLabels(namespaces[0], shardLabel(RING));

      const names = [a, b].map((m) => m.shard!.member);
      const expected = new Map(namespaces.map((ns) => [ns, rendezvousOwner(ns, names)!]));
      // Both members get some namespaces (12 namespaces: all on one member has probability 2^-11).
      expect(new Set(expected.values()).size).toBe(2);
      for (const ns of namespaces) {
        const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'by-a-user' },
        });
        expect(r.code).toBe(201);
        expect(r.body.metadata.labels).toEqual({ [shardLabel(RING)]: expected.get(ns) });
      }
      for (const m of [a, b]) {
        const share = namespaces.filter((ns) => expected.get(ns) === m.shard!.member).sort();
        await until(
          `${m.shard!.member} caches exactly its namespaces' ConfigMaps`,
          () =>
            JSON.stringify(
              m
                .getInformer(CONFIGMAP)
                .cache.list()
                .map((o) => o.metadata!.namespace!)
                .sort(),
            ) === JSON.stringify(share),
          30_000,
          50,
        );
      }
      // The apiserver's record of who wrote each object: the creating user only, no label patch of the assigner.
      for (const ns of namespaces) {
        const cm = await admin.get(CONFIGMAP, 'by-a-user', ns);
        const managers = ((cm.metadata!.managedFields ?? []) as Array<{ manager?: string }>).map((f) => f.manager);
        expect(managers).not.toContain('cdk8s-operator-sharding');
      }
      expect(
        await a.metrics.value('controller_runtime_shard_label_writes_total', { ring: RING, reason: 'admission' }),
      ).toBeGreaterThanOrEqual(namespaces.length);
    }, 120_000);

    test('what the webhook cannot decide it admits unchanged: an update, an object already labelled', async () => {
      const a = members[0];
      const ns = namespaces[0];
      const labelled = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'pre-labelled', labels: { [shardLabel(RING)]: 'someone' } },
      });
      expect(labelled.body.metadata.labels).toEqual({ [shardLabel(RING)]: 'someone' });
      const handler = shardLabelDefaulting(a);
      const update = await handler({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: ns } }, {
        uid: 'u',
        operation: 'UPDATE',
        namespace: ns,
      } as never);
      expect(update).toBeUndefined();
    });

    test("the Operator chart's labelling webhook: a user's create is labelled by a member started with the Deployment's arguments", async () => {
      const watched = [await plane().createNamespace('slwc-'), await plane().createNamespace('slwc-')];
      watched.push(await plane().createNamespace('slwc-'), await plane().createNamespace('slwc-'));
      const unwatched = await plane().createNamespace('slwc-other-');
      const contract = defineContract({ watches: [CONFIGMAP], sharding: true, watchNamespaces: watched });
      const synth = (key: 'uid' | 'namespace', labelWebhook?: boolean) => {
        const chart = new Chart(Testing.app(), 'cms');
        new Operator(chart, 'slw-operator', {
          image: 'ghcr.io/acme/cm-operator:0.1.0',
          contract,
          createWatchNamespaces: false,
          sharding: { replicas: 2, key, labelWebhook },
        });
        return Testing.synth(chart);
      };
      const objects = synth('namespace');
      const configuration = objects.find((o) => o.kind === 'MutatingWebhookConfiguration');
      const rbacKinds = ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
      await plane().applyObjects(objects.filter((o) => rbacKinds.includes(o.kind)));
      const identity = await plane().operatorIdentity(objects);
      // The chart's configuration as synthesized (rules, selectors, failurePolicy, timeout), pointed at this test.
      const installed = await plane().installWebhooks({ configurations: [configuration] });
      // With key uid the configuration carries a matchCondition: the apiserver compiles it (a dry-run create).
      const uidConfiguration = synth('uid', true).find((o) => o.kind === 'MutatingWebhookConfiguration');
      expect(uidConfiguration.webhooks[0].matchConditions).toHaveLength(1);
      const dryRun = await plane().request(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations?dryRun=All',
        { ...uidConfiguration, metadata: { name: 'slw-uid-dry-run' } },
      );
      expect([dryRun.code, dryRun.body.message]).toEqual([201, undefined]);

      const deployment = objects.find((o) => o.kind === 'Deployment');
      const args: string[] = deployment.spec.template.spec.containers[0].args;
      expect(args).toEqual(expect.arrayContaining(['--sharding-key=namespace', '--sharding-label-webhook']));
      const certDir = mkdtempSync(join(tmpdir(), 'slw-certs-'));
      writeFileSync(join(certDir, 'tls.crt'), installed.certificate.cert);
      writeFileSync(join(certDir, 'tls.key'), installed.certificate.key);
      const saved = { dir: process.env.WEBHOOK_CERT_DIR, ns: process.env.WATCH_NAMESPACE };
      // What the chart's env gives a pod (WATCH_NAMESPACE); certificates from files (the Service's TLS needs a cluster).
      process.env.WEBHOOK_CERT_DIR = certDir;
      process.env.WATCH_NAMESPACE = watched.join(',');
      const chartMembers: Manager[] = [];
      try {
        // The first member listens where the configuration points; the second on a port of its own (one Service
        // in a cluster spreads the calls over both; either answers the same from the view they share).
        for (const bind of [installed.bindAddress, '127.0.0.1:0']) {
          const argv = [
            ...args.filter((a) => !/^--(metrics|health-probe)-bind-address=/.test(a)),
            '--metrics-bind-address=0',
            '--health-probe-bind-address=0',
            `--leader-election-namespace=${deployment.metadata.namespace}`,
            `--webhook-bind-address=${bind}`,
          ];
          const manager = await startControllerBinary(
            {
              name: 'cm',
              leaseName: 'slw-operator',
              contract,
              managerOptions: () => ({ kubeConfig: plane().kubeConfig(identity), logger: testLogger() }),
              setup: (m) => {
                new ControllerBuilder(m, { name: 'noop' })
                  .for(CONFIGMAP)
                  .complete({ reconcile: async () => undefined });
              },
            },
            argv,
          );
          chartMembers.push(manager);
          members.push(manager);
        }
      } finally {
        process.env.WEBHOOK_CERT_DIR = saved.dir;
        process.env.WATCH_NAMESPACE = saved.ns;
        if (saved.dir === undefined) delete process.env.WEBHOOK_CERT_DIR;
        if (saved.ns === undefined) delete process.env.WATCH_NAMESPACE;
        rmSync(certDir, { recursive: true, force: true });
      }
      await until(
        'both members act on a 2-member view',
        () => chartMembers.every((m) => m.shard!.members.length === 2),
        30_000,
      );
      const label = shardLabel('slw-operator');
      await webhookLabels(watched[0], label);
      const names = chartMembers.map((m) => m.shard!.member);
      for (const ns of watched) {
        const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'by-a-user' },
        });
        expect(r.code).toBe(201);
        // Labelled in the create response itself: by the webhook, not by a later patch of the assigner.
        expect(r.body.metadata.labels).toEqual({ [label]: rendezvousOwner(ns, names) });
      }
      // Outside the watched namespaces the configuration's namespaceSelector keeps the webhook out.
      const other = await plane().request('POST', `/api/v1/namespaces/${unwatched}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'by-a-user' },
      });
      expect([other.code, other.body.metadata.labels]).toEqual([201, undefined]);
      expect(
        await chartMembers[0].metrics.value('controller_runtime_shard_label_writes_total', {
          ring: 'slw-operator',
          reason: 'admission',
        }),
      ).toBeGreaterThanOrEqual(watched.length);
    }, 120_000);
  },
  { shared: true },
);
