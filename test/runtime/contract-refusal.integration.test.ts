import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { FOO_BINARY } from '../../controllers/foo/main';
import { DEPLOYMENT, FOO } from '../../controllers/foo/types';
import { CustomResourceDefinition, Operator } from '../../lib';
import { ContractViolationError, defineContract, startControllerBinary } from '../../runtime';
import { describeRealApiServer, kubectl } from '../envtest';

const ROOT = path.join(__dirname, '..', '..');
// The Foo controller's wiring (for Foo, owns Deployment) under a contract that only lets it watch Deployments.
const NARROW = defineContract({
  watches: [FOO, DEPLOYMENT],
  status: true,
  events: true,
  leaderElection: true,
  watchNamespaces: ['team-a'],
});
const SA = { namespace: 'foo-narrow-system', name: 'foo-narrow' };

// On a real kube-apiserver: the binary refuses at start-up exactly the wiring that the RBAC derived from the same
// contract would deny — so the refusal replaces a 403 in production.
describeRealApiServer(
  'start-up refusal of wiring the contract does not grant',
  (plane) => {
    jest.setTimeout(180_000);
    let dir: string;
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'refusal-'));
      const chart = new Chart(Testing.app(), 'narrow');
      const crd = CustomResourceDefinition.fromFile(chart, 'crd', path.join(ROOT, 'controllers/foo/crd.yaml'));
      new Operator(chart, SA.name, {
        crds: [crd],
        image: 'ghcr.io/acme/foo:0.1.0',
        contract: NARROW,
        createWatchNamespaces: true,
      });
      const rbac = Testing.synth(chart).filter((o) =>
        ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind),
      );
      rbac.sort((a, b) => Number(b.kind === 'Namespace') - Number(a.kind === 'Namespace'));
      fs.writeFileSync(path.join(dir, 'rbac.yaml'), rbac.map((o) => YAML.stringify(o)).join('---\n'));
      const admin = path.join(dir, 'admin.kubeconfig');
      plane().writeKubeconfig(admin);
      const applied = await kubectl(admin, ['apply', '-f', path.join(dir, 'rbac.yaml')]);
      expect({ code: applied.code, stderr: applied.stderr }).toStrictEqual({ code: 0, stderr: '' });
    });
    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    test("the Foo binary under the chart's identity refuses to start, naming the verbs and resource its RBAC denies", async () => {
      const kubeconfig = path.join(dir, 'sa.kubeconfig');
      plane().writeKubeconfig(kubeconfig, await plane().serviceAccount(SA.namespace, SA.name));
      const saved = { KUBECONFIG: process.env.KUBECONFIG, WATCH_NAMESPACE: process.env.WATCH_NAMESPACE };
      process.env.KUBECONFIG = kubeconfig;
      process.env.WATCH_NAMESPACE = 'team-a';
      let error: unknown;
      try {
        await startControllerBinary({ ...FOO_BINARY, contract: NARROW }, [
          '--metrics-bind-address=0',
          '--health-probe-bind-address=0',
        ]);
      } catch (e) {
        error = e;
      } finally {
        Object.assign(process.env, saved);
        for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      }
      expect(error).toBeInstanceOf(ContractViolationError);
      expect((error as Error).message).toBe(
        "controller 'foo': wiring not granted by its contract:\n" +
          '  - owns(apps/v1 Deployment) needs create, update, patch, delete on deployments.apps: declare it in contract.owns',
      );

      // the apiserver's RBAC, as that ServiceAccount, agrees verb by verb
      const user = `system:serviceaccount:${SA.namespace}:${SA.name}`;
      const allowed = async (verb: string) => {
        const review = await plane().request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user,
            groups: ['system:serviceaccounts', `system:serviceaccounts:${SA.namespace}`, 'system:authenticated'],
            resourceAttributes: { namespace: 'team-a', verb, group: 'apps', resource: 'deployments' },
          },
        });
        expect(review.code).toBe(201);
        return `${verb}: ${review.body.status.allowed === true}`;
      };
      const verdicts = [];
      for (const verb of ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']) {
        verdicts.push(await allowed(verb));
      }
      expect(verdicts).toStrictEqual([
        'get: true',
        'list: true',
        'watch: true',
        'create: false',
        'update: false',
        'patch: false',
        'delete: false',
      ]);
    });
  },
  { shared: true },
);
