import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TESTED_TOOLCHAIN } from '../../cli/scaffold/templates';
import { describeRealApiServer } from '../envtest';
import { npmPack } from '../support/npm-pack';

const ROOT = path.join(__dirname, '..', '..');
const TUTORIAL = path.join(ROOT, 'docs', 'tutorial.md');

/**
 * The tutorial's shell blocks, in order, as one bash script. The only rewrite: `npm install
 * cdk8s-operator` installs the tarball just packed instead of the registry's version.
 */
export function tutorialScript(markdown: string, tarball: string): string {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const body = blocks.join('\n').replace(/^npm install cdk8s-operator /m, `npm install ${tarball} `);
  if (!body.includes(tarball)) {
    throw new Error('docs/tutorial.md no longer installs cdk8s-operator with `npm install cdk8s-operator …`');
  }
  // Background jobs (the controller, behind npx and the CLI) end with the script: each job is its own process
  // group (set -m), and the whole group is signalled, so no process is left holding the test's output open.
  return `set -euo pipefail\nset -m\ntrap 'for j in $(jobs -p); do kill -- -$j 2>/dev/null || true; done' EXIT\n${body}`;
}

// Packs, installs, compiles and runs for real: minutes, not seconds.
jest.setTimeout(900_000);

/** The controller's ServiceAccount, as the scaffolded chart names it. */
const OPERATOR_USER = 'system:serviceaccount:website-operator-system:website-operator';

// The apiserver's own record of who wrote each ConfigMap: the identity the out-of-cluster controller really used.
const AUDIT_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'tutorial-audit-'));
const AUDIT_LOG = path.join(AUDIT_DIR, 'audit.log');
fs.writeFileSync(
  path.join(AUDIT_DIR, 'policy.yaml'),
  `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  resources: [{ group: "", resources: ["configmaps"] }, { group: "coordination.k8s.io", resources: ["leases"] }]
  verbs: [create, update, patch]
- level: None
`,
);

/** Writes of ConfigMaps and Leases, as the apiserver audited them. */
function auditedWrites(): { user: string; resource: string; namespace: string; name: string; code: number }[] {
  if (!fs.existsSync(AUDIT_LOG)) return [];
  return fs
    .readFileSync(AUDIT_LOG, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((e) => ({
      user: e.user.username,
      resource: e.objectRef?.resource,
      namespace: e.objectRef?.namespace,
      name: e.objectRef?.name,
      code: e.responseStatus?.code,
    }));
}

describeRealApiServer(
  'docs/tutorial.md, every command',
  (plane) => {
    let tmp: string;
    beforeAll(() => {
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tutorial-'));
    });
    afterAll(() => {
      fs.rmSync(tmp, { recursive: true, force: true });
      fs.rmSync(AUDIT_DIR, { recursive: true, force: true });
    });

    test("npm init → scaffold → types → build → test (envtest from the tarball) → bundle → synth → apply → `cdk8s-operator run`: the controller reconciles a v1 and a v1alpha1 Website in two namespaces as its chart's ServiceAccount (audit log)", () => {
      // GIVEN the package packed as published, and a kubeconfig of an empty cluster
      const tarball = path.join(tmp, npmPack(tmp).filename);
      const kubeconfig = path.join(tmp, 'kubeconfig');
      plane().writeKubeconfig(kubeconfig);

      // WHEN the tutorial runs as written
      const script = tutorialScript(fs.readFileSync(TUTORIAL, 'utf8'), tarball);
      const run = spawnSync('bash', ['-c', script], {
        cwd: tmp,
        encoding: 'utf8',
        env: {
          ...process.env,
          KUBECONFIG: kubeconfig,
          // as in CI: the npm cache first, no audit/fund noise; no jest/ts-node settings leak into the project
          npm_config_prefer_offline: 'true',
          npm_config_audit: 'false',
          npm_config_fund: 'false',
          npm_config_update_notifier: 'false',
          NODE_OPTIONS: '',
          CDK8S_OPERATOR_QUIET: '1',
          LOG_LEVEL: 'warn',
          // the scaffold's own reconciler test starts a control plane with cdk8s-operator/envtest from the tarball
          KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS,
          ENVTEST_REQUIRED: '1',
        },
        timeout: 840_000,
      });

      // THEN every command succeeded, the identity is namespace-scoped, and both Websites were reconciled
      const output = `${run.stdout}\n${run.stderr}`;
      expect({ status: run.status, signal: run.signal, tail: run.status === 0 ? '' : output.slice(-6000) }).toEqual({
        status: 0,
        signal: null,
        tail: '',
      });
      expect(run.stdout).toMatch(/^yes\nno\n/m);
      // `npm test` of the scaffolded project: the chart tests and the reconciler test on a real kube-apiserver, none skipped
      expect(run.stdout).toContain(
        "ok 3 - the reconciler on a real kube-apiserver, as the chart's ServiceAccount: a Website gets its ConfigMap and status, and follows a change",
      );
      expect(run.stdout).toMatch(/^# pass 3\n# fail 0\n# cancelled 0\n# skipped 0\n/m);
      expect(run.stdout).toContain('Hello from website-operator');
      expect(run.stdout).toContain('written as v1alpha1');
      const project = path.join(tmp, 'website-operator');
      expect(fs.readFileSync(path.join(project, 'imports', 'example.com.ts'), 'utf8')).toMatch(
        /^export class WebsiteV1Alpha1 /m,
      );
      // synth (after bundle) left the bundle alone: it lives outside dist/
      expect(fs.existsSync(path.join(project, 'bundle', 'controller.js'))).toBe(true);
      // the pinned toolchain, not whatever is newest
      const installed = (p: string) =>
        JSON.parse(fs.readFileSync(path.join(project, 'node_modules', p, 'package.json'), 'utf8')).version;
      expect([installed('typescript'), installed('@types/node')]).toStrictEqual([
        TESTED_TOOLCHAIN.typescript,
        TESTED_TOOLCHAIN['@types/node'],
      ]);
      // `run` says who the minted token is (SelfSubjectReview) ...
      expect(run.stdout).toContain(`running bundle/controller.js as ${OPERATOR_USER} `);
      // ... and the apiserver's audit log shows the controller's writes made as that ServiceAccount, not as the admin
      const writes = auditedWrites().filter((w) => w.code < 300);
      const controllerWrites = writes.filter(
        (w) =>
          (w.resource === 'configmaps' && /-content$/.test(w.name)) ||
          (w.resource === 'leases' && w.namespace === 'website-operator-system'),
      );
      expect(controllerWrites.map((w) => `${w.resource} ${w.namespace}/${w.name}`)).toEqual(
        expect.arrayContaining([
          'configmaps team-a/example-content',
          'configmaps team-b/legacy-content',
          'leases website-operator-system/website-operator-leader',
        ]),
      );
      expect([...new Set(controllerWrites.map((w) => w.user))]).toStrictEqual([OPERATOR_USER]);
      // no request of the controller was denied (the runtime logs a denied request as an error)
      expect(output).not.toMatch(/"code":403|forbidden/i);
    });
  },
  {
    shared: true,
    apiServerFlags: [
      `--audit-policy-file=${path.join(AUDIT_DIR, 'policy.yaml')}`,
      `--audit-log-path=${AUDIT_LOG}`,
      '--audit-log-maxsize=0',
    ],
  },
);
