/**
 * The project's suites on a real control plane (runtime/envtest, the helper users get as `cdk8s-operator/envtest`).
 *
 * `describeRealApiServer` starts one control plane per describe block (namespaces isolate its tests) and tags the
 * block `[real-apiserver]`, which test/summary-reporter.js counts. Without the binaries the block is skipped
 * with the reason, unless ENVTEST_REQUIRED is set (as .ci/run does): then every test in it fails.
 */
import { execFile } from 'node:child_process';
import { acquireSharedPlane, releaseSharedPlane } from './shared-planes';
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

/**
 * Options of a real-apiserver suite: the control plane's, and whether it may share one (see shared-planes.ts).
 */
export interface RealApiServerOptions extends ControlPlaneOptions {
  /**
   * Run on a control plane shared with other suites of the same configuration, reset to its freshly started state
   * between suites (admission configuration, CRDs, cluster-scoped objects and namespaces created by a suite are
   * deleted). For suites that leave the plane's processes alone (a FaultProxy in front of it is fine); not for suites
   * that restart, compact or pause it. @default false
   */
  readonly shared?: boolean;
}

/**
 * Registers `${name} [real-apiserver]`; `fn` gets a getter of the running control plane, valid inside tests and hooks.
 * CI time: this repository's suites start kube-controller-manager only where they ask (`controllerManager: true`, a
 * list, or `controllerManager: undefined` for the library's default, CLUSTER_CONTROLLERS: role aggregation, garbage
 * collector, namespace lifecycle, quota); without the key, a bare apiserver. Users of `ControlPlane.start()` get
 * the controllers by default.
 */
export function describeRealApiServer(
  name: string,
  fn: (plane: () => ControlPlane) => void,
  suiteOpts: RealApiServerOptions = {},
): void {
  const { shared, ...options } = suiteOpts;
  // startTimeoutMs: a CI machine at a load average of 30 once took over the library's 60 s to make an apiserver ready
  const opts: ControlPlaneOptions = { controllerManager: false, startTimeoutMs: 150_000, ...options };
  const title = `${name} ${REAL_APISERVER_TAG}`;
  const lookup = findControlPlaneBinaries(
    opts.assetsDir ? { ...process.env, KUBEBUILDER_ASSETS: opts.assetsDir } : process.env,
  );
  const missing = 'missing' in lookup ? lookup.missing : undefined;
  if (missing && !process.env.ENVTEST_REQUIRED) {
    // test/summary-reporter.js says once, at the end, how to get the binaries
    describe.skip(title, () =>
      fn(() => {
        throw new Error(missing);
      }),
    );
    return;
  }
  describe(title, () => {
    let plane: ControlPlane | undefined;
    beforeAll(async () => {
      if (missing) throw new Error(`ENVTEST_REQUIRED is set but ${missing}`);
      plane = shared ? await acquireSharedPlane(opts) : await ControlPlane.start(opts);
    }, 200_000);
    fn(() => {
      if (!plane) {
        throw new Error(
          'describeRealApiServer: the control plane is not running (use the getter inside tests and hooks)',
        );
      }
      return plane;
    });
    // declared after the suite's own hooks, so it runs after them (jest runs afterAll hooks in the order declared): a
    // suite's afterAll still has the plane (it stops its managers, whose last requests would meet a stopped or paused
    // apiserver, and a reset that ran while they still wrote)
    afterAll(async () => {
      if (shared && plane) await releaseSharedPlane(plane);
      else await plane?.stop();
    }, 60_000);
  });
}

/** The apiserver versions the differential suites compare with: the oldest supported, the default, the newest. */
export const ORACLE_VERSIONS = ['1.28', '1.32', '1.36'] as const;
export type OracleVersion = (typeof ORACLE_VERSIONS)[number];

/**
 * The binaries of an oracle version: `KUBEBUILDER_ASSETS` for the default version (1.32),
 * `KUBEBUILDER_ASSETS_1_28` (`_1_32`, `_1_36`) for each. Nothing is guessed from folders beside the clone: CI names them.
 */
export function assetsFor(version: OracleVersion): { dir: string } | { missing: string } {
  const variable = `KUBEBUILDER_ASSETS_${version.replace('.', '_')}`;
  const dir = (version === '1.32' ? process.env.KUBEBUILDER_ASSETS : undefined) ?? process.env[variable];
  if (dir) return { dir };
  return { missing: `no kube-apiserver ${version}: set ${variable} to a folder with its kube-apiserver and etcd` };
}

/**
 * `describeRealApiServer` once per oracle version (`name [v1.28] [real-apiserver]`, …), each on its own control
 * plane of that version; `fn` gets the plane and the version, so verdicts are compared with that version's.
 * `opts` may depend on the version (a feature gate only an old version needs).
 * Versions listed in `ENVTEST_VERSIONS` (comma-separated, e.g. `1.32`) only, when it is set.
 */
export function describeEachApiServerVersion(
  name: string,
  fn: (plane: () => ControlPlane, version: OracleVersion) => void,
  opts: RealApiServerOptions | ((version: OracleVersion) => RealApiServerOptions) = {},
): void {
  const only = process.env.ENVTEST_VERSIONS?.split(',').map((v) => v.trim());
  for (const version of ORACLE_VERSIONS.filter((v) => !only || only.includes(v))) {
    const assets = assetsFor(version);
    if ('missing' in assets) {
      if (!process.env.ENVTEST_REQUIRED) {
        describe.skip(`${name} [v${version}] ${REAL_APISERVER_TAG}`, () =>
          fn(() => {
            throw new Error(assets.missing);
          }, version));
        continue;
      }
      describe(`${name} [v${version}] ${REAL_APISERVER_TAG}`, () => {
        test('the control plane of this version is there', () => {
          throw new Error(assets.missing);
        });
      });
      continue;
    }
    const own = typeof opts === 'function' ? opts(version) : opts;
    describeRealApiServer(`${name} [v${version}]`, (plane) => fn(plane, version), { ...own, assetsDir: assets.dir });
  }
}

/** `describeRealApiServer` on one oracle version's control plane (`name [v1.36] [real-apiserver]`): an API only it serves. */
export function describeApiServerVersion(
  name: string,
  version: OracleVersion,
  fn: (plane: () => ControlPlane) => void,
  opts: RealApiServerOptions = {},
): void {
  const assets = assetsFor(version);
  if ('missing' in assets) {
    if (!process.env.ENVTEST_REQUIRED) {
      console.log(`real-apiserver suite "${name}" on ${version} skipped: ${assets.missing}`);
      describe.skip(`${name} [v${version}] ${REAL_APISERVER_TAG}`, () =>
        fn(() => {
          throw new Error(assets.missing);
        }));
      return;
    }
    describe(`${name} [v${version}] ${REAL_APISERVER_TAG}`, () => {
      test('the control plane of this version is there', () => {
        throw new Error(assets.missing);
      });
    });
    return;
  }
  describeRealApiServer(`${name} [v${version}]`, fn, { ...opts, assetsDir: assets.dir });
}

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl (from PATH, as users run it) with a kubeconfig; never throws on a non-zero exit. */
export function kubectl(
  kubeconfig: string,
  args: readonly string[],
  opts: { cwd?: string; timeoutMs?: number } = {},
): Promise<KubectlResult> {
  return new Promise((resolve) =>
    execFile(
      'kubectl',
      [...args],
      {
        cwd: opts.cwd,
        encoding: 'utf8',
        timeout: opts.timeoutMs ?? 120_000,
        env: { ...process.env, KUBECONFIG: kubeconfig },
      },
      (err, stdout, stderr) =>
        resolve({
          code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
          stdout,
          stderr: err && !stderr ? String(err) : stderr,
        }),
    ),
  );
}
