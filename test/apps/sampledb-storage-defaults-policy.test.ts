import { Testing } from 'cdk8s';
import { sampleDbCrd } from '../../apps/sampledb/sampledb-crd';
import { storageDefaultsPolicy } from '../../apps/sampledb/storage-defaults-policy';
import { defaultSampleDb } from '../../controllers/sampledb/webhooks';
import { MutatingAdmissionPolicyManifest } from '../../lib/apiserver/admission-policy';
import { previewMutations } from '../../lib/apiserver/admission-policy/preview/preview-mutations';
import { applyDefaults } from '../../lib/apiserver/value-validation/value-defaults';
import { describeApiServerVersion } from '../envtest';

/**
 * SampleDB's storage defaults as a MutatingAdmissionPolicy on kube-apiserver v1.36.3: for namespaces with and without
 * the default-storage annotations, a SampleDB created (dry run) is stored with what the operator's defaulting webhook
 * would set (its handler run on the same object and namespace), and with what the synth-time preview says.
 */
const chart = Testing.chart();
const crdConstruct = sampleDbCrd(chart);
const NAMESPACES = {
  plain: {},
  annotated: { 'database.example.com/default-storage': '5Gi', 'database.example.com/default-storage-class': 'fast' },
  'class-only': { 'database.example.com/default-storage-class': 'fast-ssd' },
  'bad-annotations': {
    'database.example.com/default-storage': 'lots',
    'database.example.com/default-storage-class': 'Bad_Class',
  },
} as const;
storageDefaultsPolicy(chart, crdConstruct, Object.keys(NAMESPACES));
const manifests = Testing.synth(chart);
const crd = crdConstruct.toManifest();
const policy = manifests.find((m) => m.kind === 'MutatingAdmissionPolicy') as MutatingAdmissionPolicyManifest;
const binding = manifests.find((m) => m.kind === 'MutatingAdmissionPolicyBinding');
const STORAGE = crd.spec.versions.find((v) => v.storage)!;
const SDBS = (ns: string) => `/apis/database.example.com/${STORAGE.name}/namespaces/${ns}/sampledbs?dryRun=All`;

const CASES: ReadonlyArray<[keyof typeof NAMESPACES, Record<string, unknown>]> = [
  ['plain', { version: '16.4' }],
  ['plain', { version: '16.4', storage: '2Gi' }],
  ['annotated', { version: '16.4' }],
  ['annotated', { version: '16.4', storage: '2Gi' }],
  ['annotated', { version: '16.4', storageClassName: 'slow' }],
  ['class-only', { version: '16.4' }],
  ['bad-annotations', { version: '16.4' }],
];

describeApiServerVersion('SampleDB storage defaults policy', '1.36', (plane) => {
  const sampleDb = (namespace: string, spec: Record<string, unknown>) => ({
    apiVersion: `database.example.com/${STORAGE.name}`,
    kind: 'SampleDB',
    metadata: { name: 'db', namespace },
    spec,
  });

  beforeAll(async () => {
    await plane().installCrds([crd]);
    for (const [name, annotations] of Object.entries(NAMESPACES)) {
      const r = await plane().request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, annotations },
      });
      expect(r.code).toBe(201);
    }
    for (const object of [policy, binding]) {
      const plural =
        object.kind === 'MutatingAdmissionPolicy' ? 'mutatingadmissionpolicies' : 'mutatingadmissionpolicybindings';
      const r = await plane().request('POST', `/apis/admissionregistration.k8s.io/v1/${plural}`, object);
      expect({ code: r.code, body: r.code === 201 ? undefined : r.body }).toStrictEqual({ code: 201, body: undefined });
    }
    // in force once a SampleDB in a plain namespace gets its 1Gi
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await plane().request('POST', SDBS('plain'), sampleDb('plain', { version: '16.4' }));
      if (r.code === 201 && r.body.spec.storage === '1Gi') break;
      if (Date.now() > deadline) throw new Error(`the policy never took effect: ${JSON.stringify(r.body)}`);
      await new Promise((res) => setTimeout(res, 200));
    }
  }, 120_000);

  test.each(CASES)('in namespace %s: %j', async (namespace, spec) => {
    const reply = await plane().request('POST', SDBS(namespace), sampleDb(namespace, spec));
    expect(reply.code).toBe(201);
    const stored = reply.body.spec as Record<string, unknown>;
    const ns = (await plane().request('GET', `/api/v1/namespaces/${namespace}`)).body;

    // the preview, given the namespace as the cluster has it
    const schema = STORAGE.schema!.openAPIV3Schema!;
    const preview = previewMutations(
      policy,
      {
        object: applyDefaults(schema, sampleDb(namespace, spec)) as Record<string, unknown>,
        schema,
        resource: { group: 'database.example.com', version: STORAGE.name, resource: 'sampledbs' },
        kind: 'SampleDB',
        namespaced: true,
        namespace: ns,
      },
      '1.36',
    );
    expect(preview.outcome).toBe('mutated');
    expect(preview.outcome === 'mutated' ? preview.object.spec : undefined).toStrictEqual(stored);

    // the webhook's handler on the same object (decoded: the schema's defaults applied) and namespace
    const decoded = applyDefaults(schema, sampleDb(namespace, spec)) as { spec: Record<string, unknown> };
    const client = { get: async () => ns } as unknown as Parameters<typeof defaultSampleDb>[0]['client'];
    const verdict = await defaultSampleDb({ client })(
      structuredClone(decoded) as never,
      {
        namespace,
        operation: 'CREATE',
      } as never,
    );
    if (namespace === 'bad-annotations') {
      // the policy copies no invalid annotation: the fields stay unset, and the webhook (still installed) refuses
      expect(stored).toStrictEqual(decoded.spec);
      expect(verdict).toMatchObject({ allowed: false });
    } else {
      expect(stored).toStrictEqual(JSON.parse(JSON.stringify((verdict as { spec: unknown }).spec)));
    }
  });
});
