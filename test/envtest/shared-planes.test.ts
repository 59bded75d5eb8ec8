import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REAL_APISERVER_TAG } from '.';
import { acquireSharedPlane, releaseSharedPlane } from './shared-planes';
import { ControlPlane, ControlPlaneOptions, findControlPlaneBinaries } from '../../runtime/envtest';
import { until } from '../runtime/support';

/**
 * The shared planes' reset on a real apiserver: a suite that left a CRD converted by a webhook whose Service is gone
 * (a dist/ CRD, no operator running) must not cost the next suite a new plane. Before the reset switched conversion
 * off, listing the CRD's other version failed on the webhook and the plane was stopped ("not reused").
 */
const missing = findControlPlaneBinaries(process.env);
const describeIfBinaries = 'missing' in missing && !process.env.ENVTEST_REQUIRED ? describe.skip : describe;

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.reset.example.com' },
  spec: {
    group: 'reset.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: ['v1', 'v2'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    })),
    conversion: {
      strategy: 'Webhook',
      webhook: {
        conversionReviewVersions: ['v1'],
        clientConfig: { service: { namespace: 'nowhere', name: 'gone-webhook', path: '/convert' } },
      },
    },
  },
};

describeIfBinaries(`shared control planes ${REAL_APISERVER_TAG}`, () => {
  test('a plane left with a CRD whose conversion webhook is gone, and a validating webhook whose server is gone, is reset and given to the next suite', async () => {
    const opts: ControlPlaneOptions = { controllerManager: false, startTimeoutMs: 150_000 };
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const first = await acquireSharedPlane({ ...opts, crds: [crd] });
      const ns = await first.createNamespace('reset-');
      const created = await first.request('POST', `/apis/reset.example.com/v1/namespaces/${ns}/widgets`, {
        apiVersion: 'reset.example.com/v1',
        kind: 'Widget',
        metadata: { name: 'kept', finalizers: ['reset.example.com/hold'] },
      });
      expect(created.code).toBe(201);
      // and a validating webhook of the suite, its server gone: it refuses every write to widgets, clearing the
      // finalizer too, until the reset deletes it (the reset did so only after the CRDs, and failed on the PATCH)
      const webhook = await first.request(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        {
          metadata: { name: 'reset-gone-webhook' },
          webhooks: [
            {
              name: 'widgets.reset.example.com',
              clientConfig: { url: 'https://127.0.0.1:1/validate' },
              rules: [
                {
                  apiGroups: ['reset.example.com'],
                  apiVersions: ['*'],
                  operations: ['CREATE', 'UPDATE'],
                  resources: ['widgets'],
                },
              ],
              failurePolicy: 'Fail',
              sideEffects: 'None',
              admissionReviewVersions: ['v1'],
            },
          ],
        },
      );
      expect(webhook.code).toBe(201);
      // the apiserver calls a new webhook once its informer has the configuration, not at once (a loaded CI run
      // patched before): a dry-run patch, which the webhook is called for too, tells when it is in force
      const clearFinalizers = (query = '') =>
        first.request(
          'PATCH',
          `/apis/reset.example.com/v1/namespaces/${ns}/widgets/kept${query}`,
          { metadata: { finalizers: null } },
          { contentType: 'application/merge-patch+json' },
        );
      await until('the validating webhook in force', async () => (await clearFinalizers('?dryRun=All')).code === 500);
      const refused = await clearFinalizers();
      expect(refused.body.message).toContain('failed calling webhook');
      // what the reset would meet without the fix: the other version cannot be listed
      const viaWebhook = await first.request('GET', `/apis/reset.example.com/v2/namespaces/${ns}/widgets`);
      expect(viaWebhook.code).toBe(500);
      expect(viaWebhook.body.message).toContain('conversion webhook');
      const dir = first.dir;
      await releaseSharedPlane(first);
      expect(warn).not.toHaveBeenCalled();

      const second = await acquireSharedPlane(opts);
      try {
        expect(second.dir).toBe(dir);
        expect(
          (await second.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`))
            .code,
        ).toBe(404);
        expect((await second.request('GET', `/api/v1/namespaces/${ns}`)).code).toBe(404);
        const webhooks = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/reset-gone-webhook';
        expect((await second.request('GET', webhooks)).code).toBe(404);
        // a suite that walks discovery or the OpenAPI v3 index (the vendored-OpenAPI check) meets no trace of the group
        const groups = (await second.request('GET', '/apis')).body.groups.map((g: any) => g.name);
        expect(groups).not.toContain('reset.example.com');
        const documents = Object.keys((await second.request('GET', '/openapi/v3')).body.paths);
        expect(documents.filter((d) => d.startsWith('apis/reset.example.com/'))).toEqual([]);
      } finally {
        await releaseSharedPlane(second);
      }
    } finally {
      warn.mockRestore();
    }
  }, 300_000);

  test("what a suite's kubectl cached of the plane's discovery is gone for the next suite: an apply of a CRD and its custom resource together fails as on a fresh cluster", async () => {
    const opts: ControlPlaneOptions = { controllerManager: false, startTimeoutMs: 150_000 };
    const work = mkdtempSync(join(tmpdir(), 'shared-kubectl-'));
    const saved = process.env.KUBECACHEDIR;
    process.env.KUBECACHEDIR = join(work, 'cache');
    const plain = { ...crd, spec: { ...crd.spec, conversion: undefined } };
    const kubectl = (plane: ControlPlane, ...args: string[]) => {
      plane.writeKubeconfig(join(work, 'kubeconfig'));
      return spawnSync('kubectl', args, {
        encoding: 'utf8',
        env: { ...process.env, KUBECONFIG: join(work, 'kubeconfig') },
      });
    };
    try {
      const first = await acquireSharedPlane({ ...opts, crds: [plain] });
      const dir = first.dir;
      // the first suite's kubectl learns the kind (and caches it under the plane's port)
      expect(kubectl(first, 'get', 'widgets', '-A').status).toBe(0);
      await releaseSharedPlane(first);

      const second = await acquireSharedPlane(opts);
      try {
        expect(second.dir).toBe(dir);
        writeFileSync(join(work, 'crd.json'), JSON.stringify(plain));
        const widget = { apiVersion: 'reset.example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'x' } };
        writeFileSync(join(work, 'widget.json'), JSON.stringify(widget));
        const r = kubectl(second, 'apply', '-f', join(work, 'crd.json'), '-f', join(work, 'widget.json'));
        // with the first suite's cache: 'namespaces "x" not found' (the kind mapped at once, its CRD established)
        expect(r.stderr).toMatch(/no matches for kind "Widget" in version "reset\.example\.com\/v1"/);
      } finally {
        await releaseSharedPlane(second);
      }
    } finally {
      if (saved === undefined) delete process.env.KUBECACHEDIR;
      else process.env.KUBECACHEDIR = saved;
      rmSync(work, { recursive: true, force: true });
    }
  }, 300_000);

  test("a suite's CRDs restart the plane's kube-controller-manager, and that one is the plane's: one runs, whatever suites came before", async () => {
    const opts: ControlPlaneOptions = { controllerManager: ['garbage-collector-controller'], startTimeoutMs: 150_000 };
    // kube-controller-managers running for this plane's folder (its kubeconfig is there)
    const running = (dir: string) =>
      Number(spawnSync('pgrep', ['-c', '-f', `kubeconfig=${dir}/`], { encoding: 'utf8' }).stdout.trim());
    // the file's CRD without its conversion webhook, under another name for the second suite
    const plain = (plural: string, kind: string) => ({
      ...crd,
      metadata: { name: `${plural}.reset.example.com` },
      spec: {
        ...crd.spec,
        conversion: undefined,
        names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      },
    });
    const first = await acquireSharedPlane({ ...opts, crds: [plain('widgets', 'Widget')] });
    const dir = first.dir;
    expect(running(dir)).toBe(1);
    await releaseSharedPlane(first);
    const second = await acquireSharedPlane({ ...opts, crds: [plain('gadgets', 'Gadget')] });
    try {
      expect(second.dir).toBe(dir);
      // before the view shared the pooled plane's state: 2 (the first suite's restart kept running)
      expect(running(dir)).toBe(1);
    } finally {
      await releaseSharedPlane(second);
    }
  }, 300_000);
});
