/**
 * The shared harness of the node end-to-end suites (`test/node/run.ts`): one real single-node cluster
 * (the harness K8S_NODE_HARNESS names: kubelet, containerd, kube-proxy, real pods) brought up once and handed to every
 * suite in turn, so CI pays for one cluster start, one image build and one `dist/` install.
 *
 * A suite is `test/node/suites/<name>.ts` exporting `default async function (h: NodeHarness)`. It records
 * each assertion as a `step`, uses its own namespaces, and leaves the cluster usable for the suites after it.
 * `ensureDistApplied()` installs the demo's `dist/` exactly as `dist/APPLY.md` says, once per cluster.
 *
 * Each suite gets its own view of the harness (`forSuite`): its steps are attributed to it, while the results and the
 * `dist/` install are shared with the other views. Suites that run at the same time (run.ts's lanes) run in separate
 * processes (a `spawnSync` blocks its whole process: one lane's kubectl would stall the other's write loads and
 * timers); such a process gets the parent's `dist/` outcome through NODE_E2E_DIST and appends each step's result to
 * the file NODE_E2E_LANE_RESULTS, which the parent reads.
 */
import { execFileSync, spawnSync } from 'child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'fs';
import { homedir } from 'os';
import { join, resolve } from 'path';
import { loadAll } from 'js-yaml';
import { RestGet } from './rest-get';

export const ROOT = resolve(__dirname, '../..');
/**
 * A script of the single-node cluster's harness (cluster.sh, build-images.sh and their README), in the folder that
 * `K8S_NODE_HARNESS` names (.ci/run names it when the machine has one): nothing guesses a folder beside the clone.
 */
export function harnessScript(name: 'cluster.sh' | 'build-images.sh'): string {
  const dir = process.env.K8S_NODE_HARNESS;
  if (!dir || !existsSync(join(dir, 'cluster.sh'))) {
    throw new Error(
      `the node harness is missing: set K8S_NODE_HARNESS to the folder of its cluster.sh (now ${dir ?? 'unset'})`,
    );
  }
  return join(resolve(dir), name);
}
export const IMAGES = process.env.K8S_NODE_STATE
  ? join(process.env.K8S_NODE_STATE, 'images')
  : join(homedir(), '.cache/k8s-node/images');
/** The distroless-like Node 20 base image tarball that build-images.sh writes. */
export const BASE_IMAGE = join(IMAGES, 'distroless-node20.tar');

export interface StepResult {
  readonly suite: string;
  readonly step: string;
  readonly ok: boolean;
  readonly seconds: number;
  readonly note: string;
}

export interface ShOptions {
  readonly input?: string;
  /** Return the output instead of throwing on a non-zero exit. */
  readonly allowFail?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /**
   * Return standard output alone: for output that is parsed, since a client may log to stderr while the command
   * succeeds (`kubectl exec` over websockets: "Unknown stream id 1, discarding message").
   */
  readonly stdoutOnly?: boolean;
}

/**
 * TEST_TIMEOUT_SCALE (.ci/run sets 3; 1 by default): the factor of every allowance for the host's speed, {@link until}'s
 * waits and the host's part of a suite's timed bound (never what the bound guarantees), as the jest suites do
 * (hostSlackMs in test/runtime/support.ts).
 */
export const HOST_SLACK_SCALE = Number(process.env.TEST_TIMEOUT_SCALE || '1');

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}

/**
 * Polls `fn` until it returns a truthy value (thrown errors count as "not yet"; the last one is reported on timeout),
 * for `timeoutS` times HOST_SLACK_SCALE: a wait for the cluster to get somewhere is an allowance for the host's speed
 * (as jest's `until` in test/runtime/support.ts). A wait whose timeout is the bound a step asserts is
 * {@link untilBound}.
 */
export function until<T>(
  what: string,
  fn: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  timeoutS = 180,
  everyMs = 500,
): Promise<T> {
  return untilBound(what, fn, timeoutS * HOST_SLACK_SCALE, everyMs);
}

/** {@link until} for exactly `timeoutS`: the bound a step asserts (scaled by the caller where part of it is the host's). */
export async function untilBound<T>(
  what: string,
  fn: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  timeoutS: number,
  everyMs = 500,
): Promise<T> {
  const end = Date.now() + timeoutS * 1000;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) {
      throw new Error(
        `timed out after ${timeoutS}s waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`,
      );
    }
    await sleep(everyMs);
  }
}

/** The outcome of the `dist/` install as a parent process hands it to a lane's process (NODE_E2E_DIST). */
export type DistOutcome = { readonly ok: true; readonly note: string } | { readonly ok: false; readonly error: string };

/** What every view of one harness shares: the results, and the `dist/` install (once per cluster). */
interface SharedState {
  readonly results: StepResult[];
  /** Where a lane's process appends each result (one JSON line), for its parent. */
  readonly resultsFile?: string;
  distApplied?: Promise<string>;
}

/** A lane's process: the results file, and the parent's `dist/` outcome (NODE_E2E_DIST) as if installed here. */
function sharedFromEnvironment(): SharedState {
  const shared: SharedState = { results: [], resultsFile: process.env.NODE_E2E_LANE_RESULTS || undefined };
  if (process.env.NODE_E2E_DIST) {
    const dist = JSON.parse(process.env.NODE_E2E_DIST) as DistOutcome;
    shared.distApplied = dist.ok ? Promise.resolve(dist.note) : Promise.reject(new Error(dist.error));
    shared.distApplied.catch(() => undefined); // rejected until a suite's step awaits it
  }
  return shared;
}

export class NodeHarness {
  /** The cluster's folder (PKI, logs, pid files; see the harness's README.md). */
  readonly dir: string;
  /** The admin (system:masters) kubeconfig. */
  readonly kubeconfig: string;
  /** The environment every command runs with: KUBECONFIG set to the admin kubeconfig. */
  readonly env: NodeJS.ProcessEnv;
  /** The suite whose steps this view records ('' for the runner's own). */
  readonly suite: string;
  private readonly shared: SharedState;
  private readonly restGet: RestGet;

  constructor(dir: string, suite = '', shared?: SharedState) {
    this.dir = dir;
    this.kubeconfig = join(dir, 'kubeconfig');
    this.env = { ...process.env, KUBECONFIG: this.kubeconfig };
    this.suite = suite;
    this.shared = shared ?? sharedFromEnvironment();
    this.restGet = new RestGet(this.kubeconfig);
  }

  /** The view of this harness for one suite: its steps attributed to it; results and `dist/` shared. */
  forSuite(suite: string): NodeHarness {
    return new NodeHarness(this.dir, suite, this.shared);
  }

  get results(): readonly StepResult[] {
    return this.shared.results;
  }

  /** Adds a result recorded elsewhere (a lane's process) without printing it again. */
  addResults(results: readonly StepResult[]): void {
    this.shared.results.push(...results);
  }

  /** The outcome of `ensureDistApplied()`, for a lane's process (NODE_E2E_DIST). */
  async distOutcome(): Promise<DistOutcome> {
    return this.ensureDistApplied().then(
      (note) => ({ ok: true, note }),
      (err) => ({ ok: false, error: (err as Error).message }),
    );
  }

  sh(cmd: string, args: string[], options: ShOptions = {}): string {
    const r = spawnSync(cmd, args, {
      env: options.env ?? this.env,
      cwd: options.cwd,
      input: options.input,
      encoding: 'utf8',
      maxBuffer: 256 << 20,
    });
    if ((r.status !== 0 || r.error) && !options.allowFail) {
      throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${r.stderr}${r.stdout}`);
    }
    return options.stdoutOnly ? (r.stdout ?? '') : `${r.stdout ?? ''}${r.stderr ?? ''}`;
  }

  /** kubectl's output; `get --raw PATH` is one HTTPS GET (see rest-get.ts). */
  kubectl(...args: string[]): string {
    if (args.length === 3 && args[0] === 'get' && args[1] === '--raw') return this.restGet.raw(args[2]);
    return this.sh('kubectl', args);
  }

  /** `kubectl exec <args>`'s standard output (see {@link ShOptions.stdoutOnly}). */
  exec(...args: string[]): string {
    return this.sh('kubectl', ['exec', ...args], { stdoutOnly: true });
  }

  /** `kubectl <args> -o json`, parsed (a plain `get` is one HTTPS GET: see rest-get.ts). */
  json<T = any>(...args: string[]): T {
    const fast = this.restGet.get(args);
    if (fast !== undefined) return fast as T;
    const r = spawnSync('kubectl', [...args, '-o', 'json'], { env: this.env, encoding: 'utf8', maxBuffer: 256 << 20 });
    if (r.status !== 0) throw new Error(`kubectl ${args.join(' ')} -o json failed (${r.status}): ${r.stderr}`);
    return JSON.parse(r.stdout);
  }

  /** `kubectl apply -f -` of the given objects. */
  apply(...objects: object[]): string {
    return this.sh('kubectl', ['apply', '-f', '-'], { input: objects.map((o) => JSON.stringify(o)).join('\n') });
  }

  /** Whether `kubectl get <args>` finds the object. */
  exists(...args: string[]): boolean {
    const fast = this.restGet.exists(['get', ...args]);
    if (fast !== undefined) return fast;
    return this.sh('kubectl', ['get', ...args, '--ignore-not-found', '-o', 'name'], { allowFail: true }).trim() !== '';
  }

  /** The harness's cluster.sh with this cluster's folder (`up` resumes stopped components, `status`, `import`). */
  cluster(command: 'up' | 'down' | 'status' | 'import', ...args: string[]): string {
    return this.sh(harnessScript('cluster.sh'), [command, this.dir, ...args], {
      env: { ...process.env, PSS_RESTRICTED: '1' },
    });
  }

  /** Records one assertion of the current suite; a thrown error fails the step, not the run. */
  async step(name: string, fn: () => Promise<string | void> | string | void): Promise<boolean> {
    const started = Date.now();
    const seconds = () => (Date.now() - started) / 1000;
    let result: StepResult;
    try {
      const note = (await fn()) ?? '';
      result = { suite: this.suite, step: name, ok: true, seconds: seconds(), note };
    } catch (err) {
      result = { suite: this.suite, step: name, ok: false, seconds: seconds(), note: (err as Error).message };
      this.savePodLogsOfFailedStep(name);
    }
    this.shared.results.push(result);
    if (this.shared.resultsFile) appendFileSync(this.shared.resultsFile, `${JSON.stringify(result)}\n`);
    process.stdout.write(
      `${result.ok ? 'ok  ' : 'FAIL'} [${this.suite}] ${name} [${result.seconds.toFixed(1)}s] ${result.note}\n`,
    );
    return result.ok;
  }

  /**
   * Installs the demo once per cluster, as a user does: controller images built without Docker and imported,
   * `npx cdk8s synth`, then exactly the commands of `dist/APPLY.md`; waits until every Deployment in `dist/` is
   * Available. Returns what was done (the first caller records it as a step). Throws on any warning kubectl prints.
   */
  ensureDistApplied(): Promise<string> {
    this.shared.distApplied ??= this.applyDist();
    return this.shared.distApplied;
  }

  private async applyDist(): Promise<string> {
    execFileSync('npx', ['tsx', 'tools/image/main.ts', '--base', BASE_IMAGE], { cwd: ROOT, stdio: 'inherit' });
    const tars = readdirSync(join(ROOT, 'images'))
      .filter((f) => f.endsWith('.tar'))
      .map((f) => join(ROOT, 'images', f));
    this.cluster('import', ...tars);
    execFileSync('npx', ['cdk8s', 'synth'], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { ...process.env, CDK8S_OPERATOR_QUIET: '1' },
    });
    const apply = /```sh\n([\s\S]*?)```/
      .exec(readFileSync(join(ROOT, 'dist/APPLY.md'), 'utf8'))![1]
      .trim()
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'));
    let output = '';
    for (const line of apply) output += this.sh('sh', ['-c', line], { cwd: ROOT });
    const warnings = output.split('\n').filter((l) => /warning/i.test(l));
    assert(warnings.length === 0, `apply printed warnings: ${warnings.join(' | ')}`);
    const deployments = distObjects()
      .filter((o) => o.kind === 'Deployment')
      .map((o) => `${o.metadata.namespace ?? 'default'}/${o.metadata.name}`);
    await until(
      `every Deployment of dist/ Available (${deployments.join(', ')})`,
      () =>
        deployments.every((d) => {
          const [ns, name] = d.split('/');
          return (this.json('get', 'deployment', name, '-n', ns).status?.availableReplicas ?? 0) >= 1;
        }),
      180,
      1000,
    );
    return `${tars.length} images imported; ${apply.length} commands of dist/APPLY.md, 0 warnings; Available: ${deployments.join(', ')}`;
  }

  /**
   * Keeps what explains a failure before the cluster goes away: every pod's log (and its previous container's),
   * every namespace's events and objects' YAML, and the control plane's logs, under `dir` (printed).
   */
  collectArtifacts(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const save = (name: string, args: string[]) =>
      writeFileSync(join(dir, name), this.sh('kubectl', args, { allowFail: true }));
    save('events.txt', ['get', 'events', '-A', '--sort-by=.lastTimestamp']);
    // events.txt's ages are relative and its order misses the operators' events.k8s.io Events (no lastTimestamp):
    // their exact times (eventTime, series.lastObservedTime) and writers (reportingInstance) are in this one.
    save('events.yaml', ['get', 'events.events.k8s.io', '-A', '-o', 'yaml']);
    save('objects.yaml', ['get', 'all,sampledbs,leases,configmaps', '-A', '-o', 'yaml']);
    this.savePodLogs(dir);
    for (const f of readdirSync(this.dir).filter((n) => n.endsWith('.log'))) {
      writeFileSync(join(dir, `cluster-${f}`), readFileSync(join(this.dir, f)));
    }
    process.stdout.write(`artifacts of the failed run: ${dir}\n`);
  }

  /** Every pod's log and its previous container's, under `dir`. */
  private savePodLogs(dir: string): void {
    mkdirSync(dir, { recursive: true });
    const pods = this.json<{ items: { metadata: { namespace: string; name: string } }[] }>('get', 'pods', '-A').items;
    for (const {
      metadata: { namespace, name },
    } of pods) {
      for (const previous of [false, true]) {
        const args = [
          'logs',
          '-n',
          namespace,
          name,
          '--all-containers',
          '--timestamps',
          ...(previous ? ['--previous'] : []),
        ];
        const file = `pod-${namespace}-${name}${previous ? '.previous' : ''}.log`;
        writeFileSync(join(dir, file), this.sh('kubectl', args, { allowFail: true }));
      }
    }
  }

  /**
   * The pods' logs when a step fails, in a folder of the run's artifacts named after it (NODE_E2E_ARTIFACTS, which
   * run.ts sets for every lane): the run's end is too late for the pods a later step deletes (a CI run's standby
   * crash-looped in the upgrade step, and its log was gone with the database the next step deleted).
   */
  private savePodLogsOfFailedStep(step: string): void {
    const root = process.env.NODE_E2E_ARTIFACTS;
    if (!root) return;
    const slug = step.replace(/[^a-zA-Z0-9]+/g, '-').slice(0, 60);
    try {
      this.savePodLogs(join(root, `failed-step-${this.suite}-${slug}`));
    } catch (err) {
      process.stdout.write(`pod logs of the failed step not saved: ${(err as Error).message}\n`);
    }
  }

  passed(suite?: string): number {
    return this.results.filter((r) => r.ok && (!suite || r.suite === suite)).length;
  }

  failed(suite?: string): number {
    return this.results.filter((r) => !r.ok && (!suite || r.suite === suite)).length;
  }
}

interface ManifestObject {
  kind: string;
  metadata: { name: string; namespace?: string };
}

/** Every object of the synthesized `dist/*.yaml`. */
export function distObjects(): ManifestObject[] {
  const dist = join(ROOT, 'dist');
  if (!existsSync(dist)) return [];
  return readdirSync(dist)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => loadAll(readFileSync(join(dist, f), 'utf8')) as (ManifestObject | null)[])
    .filter((o): o is ManifestObject => !!o && typeof o === 'object' && 'kind' in o);
}
