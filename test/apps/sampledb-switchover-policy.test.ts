import { Testing } from 'cdk8s';
import { SampleDbChart } from '../../apps/sampledb/sampledb-chart';
import {
  clusterResolver,
  typeCheckPolicy,
  ValidatingAdmissionPolicyManifest,
} from '../../lib/apiserver/admission-policy';
import { Warnings } from '../../lib/synth-metadata/warnings';
import { describeRealApiServer } from '../envtest';

/**
 * The SampleDB chart's switchover policy on kube-apiserver 1.32 (with kube-controller-manager's status controller):
 * setting or changing spec.primary is refused to users outside the group sampledb-admins and admitted to its
 * members (impersonated users, both allowed by RBAC to edit SampleDBs), and the apiserver reports 0 type-checking
 * warnings for the policy, which it did type-check against the SampleDB CRD's schema.
 */
const app = Testing.app();
const chart = new SampleDbChart(app, 'sampledb');
const manifests = Testing.synth(chart);
const crd = manifests.find((m) => m.kind === 'CustomResourceDefinition');
const policy = manifests.find((m) => m.kind === 'ValidatingAdmissionPolicy') as ValidatingAdmissionPolicyManifest;
const binding = manifests.find((m) => m.kind === 'ValidatingAdmissionPolicyBinding');
const GROUP = 'sampledb-admins';
// requests in the storage version: the other versions go through the operator's conversion webhook, not running here
const STORAGE = crd.spec.versions.find((v: { storage: boolean }) => v.storage).name;
const SDBS = (ns: string) => `/apis/database.example.com/${STORAGE}/namespaces/${ns}/sampledbs`;

describeRealApiServer(
  'SampleDB switchover policy',
  (plane) => {
    let ns: string;
    const as = (user: string, ...groups: string[]) => ({
      headers: { 'Impersonate-User': user, 'Impersonate-Group': ['sampledb-editors', ...groups] },
    });
    const alice = as('alice', GROUP);
    const bob = as('bob');
    const patch = (name: string, spec: object, who: ReturnType<typeof as>) =>
      plane().request(
        'PATCH',
        `${SDBS(ns)}/${name}`,
        { spec },
        { ...who, contentType: 'application/merge-patch+json' },
      );
    const create = (name: string, spec: object, who: ReturnType<typeof as>) =>
      plane().request(
        'POST',
        SDBS(ns),
        {
          apiVersion: `database.example.com/${STORAGE}`,
          kind: 'SampleDB',
          metadata: { name },
          spec: { version: '16.4', ...spec },
        },
        who,
      );

    beforeAll(async () => {
      ns = await plane().createNamespace('switchover-');
      // both users may edit SampleDBs (RBAC); only alice is in the switchover group
      await plane().request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
        metadata: { name: 'sampledb-editor' },
        rules: [
          {
            apiGroups: ['database.example.com'],
            resources: ['sampledbs'],
            verbs: ['get', 'create', 'update', 'patch'],
          },
        ],
      });
      await plane().request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        metadata: { name: 'sampledb-editors' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sampledb-editor' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'sampledb-editors' }],
      });
      for (const [path, object] of [
        ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy],
        ['/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', binding],
      ] as const) {
        const reply = await plane().request('POST', path, object);
        if (reply.code !== 201) throw new Error(`create ${path}: ${reply.code} ${JSON.stringify(reply.body)}`);
      }
      // the admission plugin picks policies up from an informer: wait until bob is refused
      await create('probe', {}, bob);
      const deadline = Date.now() + 30_000;
      while ((await patch('probe', { primary: 'probe-1' }, bob)).code !== 403) {
        if (Date.now() > deadline) throw new Error('the switchover policy never took effect');
        await patch('probe', { primary: null }, alice);
        await new Promise((r) => setTimeout(r, 250));
      }
    }, 90_000);

    test('the apiserver type-checks the policy against the SampleDB schema and reports 0 warnings; so does synth', async () => {
      let status: any;
      const deadline = Date.now() + 30_000;
      while (!status && Date.now() < deadline) {
        const got = await plane().request(
          'GET',
          `/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/${policy.metadata.name}`,
        );
        if (got.body.status?.observedGeneration === got.body.metadata.generation) status = got.body.status;
        else await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBeDefined();
      expect(status.typeChecking?.expressionWarnings ?? []).toStrictEqual([]);
      // the same check locally: it did check the SampleDB kind in its storage version (not skipped), with 0 warnings
      const ours = typeCheckPolicy(policy, clusterResolver([crd]));
      expect(ours.kinds).toStrictEqual([{ group: 'database.example.com', version: STORAGE, kind: 'SampleDB' }]);
      expect(ours.warnings).toStrictEqual([]);
      expect(Warnings.collect(chart).filter((w) => w.includes('switchover'))).toStrictEqual([]);
    }, 60_000);

    test('a user outside the group cannot set spec.primary; a member can; the message names the group and the user', async () => {
      expect((await create('db1', {}, bob)).code).toBe(201);
      const refused = await patch('db1', { primary: 'db1-1' }, bob);
      expect(refused.code).toBe(403);
      expect(refused.body.reason).toBe('Forbidden');
      expect(refused.body.message).toContain(
        'only members of group sampledb-admins may request a switchover (spec.primary), not bob',
      );
      expect((await patch('db1', { primary: 'db1-1' }, alice)).code).toBe(200);
    });

    test('changing spec.primary is a switchover request too; other edits and clearing it are not', async () => {
      expect((await create('db2', {}, alice)).code).toBe(201);
      expect((await patch('db2', { primary: 'db2-1' }, alice)).code).toBe(200);
      expect((await patch('db2', { replicas: 2 }, bob)).code).toBe(200); // spec.primary unchanged
      expect((await patch('db2', { primary: 'db2-0' }, bob)).code).toBe(403); // changed
      expect((await patch('db2', { primary: 'db2-0' }, alice)).code).toBe(200);
      expect((await patch('db2', { primary: null }, bob)).code).toBe(200); // cleared: no switchover asked
    });

    test('creating a SampleDB with spec.primary set is refused outside the group, also in a dry run', async () => {
      const dry = await plane().request(
        'POST',
        `${SDBS(ns)}?dryRun=All`,
        {
          apiVersion: `database.example.com/${STORAGE}`,
          kind: 'SampleDB',
          metadata: { name: 'db3' },
          spec: { version: '16.4', primary: 'db3-1' },
        },
        bob,
      );
      expect(dry.code).toBe(403);
      expect((await create('db3', { primary: 'db3-1' }, bob)).code).toBe(403);
      expect((await create('db3', { primary: 'db3-1' }, alice)).code).toBe(201);
    });
  },
  { shared: true, controllerManager: ['validatingadmissionpolicy-status-controller'], crds: [crd] },
);
