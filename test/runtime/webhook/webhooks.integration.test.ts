import { RuntimeMetrics } from '../../../runtime/metrics';
import { staticCertificate } from '../../../runtime/webhook/certificate-source';
import { WebhookServer } from '../../../runtime/webhook/server';
import { allowed, denied } from '../../../runtime/webhook/validating';
import { describeRealApiServer } from '../../envtest';

/** Webhook configurations as a chart writes them (service clientConfig): envtest repoints them at 127.0.0.1. */
function configurations(ns: string): object[] {
  const common = {
    rules: [
      {
        apiGroups: [''],
        apiVersions: ['v1'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['configmaps'],
        scope: 'Namespaced',
      },
    ],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
  };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: `${ns}-validating` },
      webhooks: [
        {
          ...common,
          name: 'validate.configmaps.test.example.com',
          clientConfig: {
            service: { name: 'op-webhook', namespace: 'op-system', path: '/validate-core-v1-configmap', port: 443 },
          },
          // not called for objects labelled skip=true: matchConditions are evaluated by the apiserver (GA in 1.30, beta and on in 1.28)
          matchConditions: [
            { name: 'not-skipped', expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)" },
          ],
        },
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: `${ns}-mutating` },
      webhooks: [
        {
          ...common,
          name: 'default.configmaps.test.example.com',
          reinvocationPolicy: 'Never',
          clientConfig: {
            service: { name: 'op-webhook', namespace: 'op-system', path: '/mutate-core-v1-configmap', port: 443 },
          },
        },
      ],
    },
  ];
}

describeRealApiServer(
  'webhook server behind the real apiserver (envtest installWebhooks)',
  (plane) => {
    let server: WebhookServer;
    let ns: string;
    const metrics = new RuntimeMetrics();
    const seen: { dryRun?: boolean; user?: string }[] = [];

    beforeAll(async () => {
      ns = await plane().createNamespace('hooks-');
      const hooks = await plane().installWebhooks({ configurations: configurations(ns) });
      expect(hooks.installed).toEqual([
        `ValidatingWebhookConfiguration/${ns}-validating`,
        `MutatingWebhookConfiguration/${ns}-mutating`,
      ]);
      server = new WebhookServer({
        certificates: staticCertificate(hooks.certificate),
        bindAddress: hooks.bindAddress,
        metrics,
      })
        .validating<any>('/validate-core-v1-configmap', (req) => {
          seen.push({ dryRun: req.dryRun, user: req.userInfo.username });
          const size = req.object?.data?.size;
          if (size === 'huge') return denied(`data.size: 'huge' is not a size, use e.g. '10Gi'`);
          return allowed(size === '1Gi' ? ['data.size: the default 1Gi applies'] : undefined);
        })
        .defaulting<any>('/mutate-core-v1-configmap', (cm) => {
          cm.data = { size: '1Gi', ...cm.data };
          cm.metadata.labels = { ...cm.metadata.labels, 'defaulted-by': 'webhook' };
          return cm;
        });
      await server.start();
      // The apiserver picks configurations up through an informer: wait until the webhook answers.
      for (let i = 0; ; i++) {
        const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'probe' },
        });
        if (r.code === 201 && r.body.metadata.labels?.['defaulted-by']) break;
        if (i > 100) throw new Error(`webhooks never took effect: ${r.code} ${JSON.stringify(r.body)}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    });
    afterAll(() => server?.stop());

    test('a denial reaches the client with the webhook name and message (403)', async () => {
      const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'bad' },
        data: { size: 'huge' },
      });
      expect(r.code).toBe(403);
      expect(r.body.message).toBe(
        `admission webhook "validate.configmaps.test.example.com" denied the request: data.size: 'huge' is not a size, use e.g. '10Gi'`,
      );
    });

    test('the defaulting patch is applied by the apiserver and stored; the validating webhook sees the defaulted object', async () => {
      const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'good', labels: { team: 'a' } },
      });
      expect(r.code).toBe(201);
      expect(r.body.data).toEqual({ size: '1Gi' });
      expect(r.body.metadata.labels).toEqual({ team: 'a', 'defaulted-by': 'webhook' });
      const stored = await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/good`);
      expect(stored.body.data).toEqual({ size: '1Gi' });
      // mutating webhooks run before validating ones: the validating handler saw the default and warned;
      // the warning of an admitted request reaches the client as a Warning header
      expect(r.headers.warning).toBe('299 - "data.size: the default 1Gi applies"');
    });

    test('dryRun is passed to the handler, and nothing is stored', async () => {
      seen.length = 0;
      const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'dry' },
        data: { size: '5Gi' },
      });
      expect(r.code).toBe(201);
      expect(seen).toEqual([{ dryRun: true, user: 'envtest-admin' }]);
      expect((await plane().request('GET', `/api/v1/namespaces/${ns}/configmaps/dry`)).code).toBe(404);
    });

    test('matchConditions: an object they exclude is not sent to the webhook', async () => {
      seen.length = 0;
      const r = await plane().request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'skipped', labels: { skip: 'yes' } },
        data: { size: 'huge' },
      });
      expect(r.code).toBe(201);
      expect(seen).toEqual([]);
    });

    test('controller-runtime webhook metrics count what the apiserver sent', async () => {
      expect(
        await metrics.value('controller_runtime_webhook_requests_total', {
          webhook: '/validate-core-v1-configmap',
          code: '200',
        }),
      ).toBeGreaterThanOrEqual(3);
      expect(
        await metrics.value('controller_runtime_webhook_latency_seconds', { webhook: '/mutate-core-v1-configmap' }),
      ).toBeGreaterThanOrEqual(3);
    });
  },
  { shared: true },
);
