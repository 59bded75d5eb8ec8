/**
 * The project's suites on a real control plane (runtime/envtest, the helper users get as `cdk8s-operator/envtest`).
 *
 * `describeRealApiServer` starts one control plane per describe block (namespaces isolate its tests) and tags the
 * block `[real-apiserver]`, which test/summary-reporter.js counts. Without the binaries the block is skipped
 * with the reason, unless ENVTEST_REQUIRED is set (as .ci/run does): then every test in it fails.
 */
import { execFile } from 'node:child_process';
import { ControlPlane, ControlPlaneOptions, findControlPlaneBinaries } from '../../runtime/envtest';

export { ControlPlane } from '../../runtime/envtest';
export type { ControlPlaneOptions, Identity } from '../../runtime/envtest';
export { StandInKubelet } from './stand-in-kubelet';
export type { PodOutcome } from './stand-in-kubelet';
export { FaultProxy } from './fault-proxy';
export type { FaultMatch, ProxiedRequest } from './fault-proxy';
export { TestNamespace } from './namespace';

/** The describe-name tag of suites that run on a real kube-apiserver (counted by the summary reporter). */
export const REAL_APISERVER_TAG = '[real-apiserver]';

/** Registers `${name} [real-apiserver]`; `fn` gets a getter of the running control plane, valid inside tests and hooks. */
export function describeRealApiServer(name: string, fn: (plane: () => ControlPlane) => void, opts: ControlPlaneOptions = {}): void {
  const title = `${name} ${REAL_APISERVER_TAG}`;
  const lookup = findControlPlaneBinaries();
  const missing = 'missing' in lookup ? lookup.missing : undefined;
  if (missing && !process.env.ENVTEST_REQUIRED) {
    console.log(`real-apiserver suite "${name}" skipped: ${missing}`);
    describe.skip(title, () => fn(() => {
      throw new Error(missing);
    }));
    return;
  }
  describe(title, () => {
    let plane: ControlPlane | undefined;
    beforeAll(async () => {
      if (missing) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
      plane = await ControlPlane.start(opts);
    }, 120_000);
    afterAll(async () => {
      await plane?.stop();
    }, 60_000);
    fn(() => {
      if (!plane) throw new Error('describeRealApiServer: the control plane is not running (use the getter inside tests and hooks)');
      return plane;
    });
  });
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl (from PATH, as users run it) with a kubeconfig; never throws on a non-zero exit. */
export function kubectl(kubeconfig: string, args: readonly string[], opts: { cwd?: string; timeoutMs?: number } = {}): Promise<KubectlResult> {
  return new Promise((resolve) => execFile('kubectl', [...args], {
    cwd: opts.cwd, encoding: 'utf8', timeout: opts.timeoutMs ?? 120_000, env: { ...process.env, KUBECONFIG: kubeconfig },
  }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr: err && !stderr ? String(err) : stderr })));
}
