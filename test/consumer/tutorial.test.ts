import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeRealApiServer } from '../envtest';

const ROOT = path.join(__dirname, '..', '..');
const TUTORIAL = path.join(ROOT, 'docs', 'tutorial.md');

/**
 * The tutorial's shell blocks, in order, as one bash script. The only rewrite: `npm install
 * cdk8s-operator` installs the tarball just packed instead of the registry's version.
 */
export function tutorialScript(markdown: string, tarball: string): string {
  const blocks = [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  const body = blocks.join('\n').replace(/^npm install cdk8s-operator /m, `npm install ${tarball} `);
  if (!body.includes(tarball)) throw new Error('docs/tutorial.md no longer installs cdk8s-operator with `npm install cdk8s-operator …`');
  // Background jobs (the controller) end with the script.
  return `set -euo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n${body}`;
}

// Packs, installs, compiles and runs for real: minutes, not seconds.
jest.setTimeout(900_000);

describeRealApiServer('docs/tutorial.md, every command', (plane) => {
  let tmp: string;
  beforeAll(() => { tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tutorial-')); });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  test('npm init → scaffold → types → build → test (envtest from the tarball) → synth → bundle → apply → the controller reconciles a v1 and a v1alpha1 Website in two namespaces under its chart\'s identity', () => {
    // GIVEN the package packed as published, and a kubeconfig of an empty cluster
    const packed = spawnSync('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: ROOT, encoding: 'utf8' });
    expect(packed.status).toBe(0);
    const tarball = path.join(tmp, JSON.parse(packed.stdout)[0].filename);
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
        npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false',
        NODE_OPTIONS: '', CDK8S_OPERATOR_QUIET: '1', LOG_LEVEL: 'warn',
        // the scaffold's own reconciler test starts a control plane with cdk8s-operator/envtest from the tarball
        KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS, ENVTEST_REQUIRED: '1',
      },
      timeout: 840_000,
    });

    // THEN every command succeeded, the identity is namespace-scoped, and both Websites were reconciled
    const output = `${run.stdout}\n${run.stderr}`;
    expect({ status: run.status, signal: run.signal, tail: run.status === 0 ? '' : output.slice(-6000) }).toEqual({ status: 0, signal: null, tail: '' });
    expect(run.stdout).toMatch(/^yes\nno\n/m);
    // `npm test` of the scaffolded project: the chart tests and the reconciler test on a real kube-apiserver, none skipped
    expect(run.stdout).toContain('ok 3 - the reconciler on a real kube-apiserver: a Website gets its ConfigMap and status, and follows a change');
    expect(run.stdout).toMatch(/^# pass 3\n# fail 0\n# cancelled 0\n# skipped 0\n/m);
    expect(run.stdout).toContain('Hello from website-operator');
    expect(run.stdout).toContain('written as v1alpha1');
    const project = path.join(tmp, 'website-operator');
    expect(fs.readFileSync(path.join(project, 'imports', 'example.com.ts'), 'utf8')).toMatch(/^export class WebsiteV1Alpha1 /m);
    expect(fs.existsSync(path.join(project, 'dist', 'controller.js'))).toBe(true);
    // no request of the controller was denied (the runtime logs a denied request as an error)
    expect(output).not.toMatch(/"code":403|forbidden/i);
  });
});
