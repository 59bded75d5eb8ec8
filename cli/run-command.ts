/**
 * `cdk8s-operator run`: the controller on this machine with exactly the identity its chart gives it in
 * the cluster (operator-sdk's `run --local`, but not as you): a short-lived token of the chart's
 * ServiceAccount is minted with the TokenRequest API (as `kubectl create token` does) into a token file
 * that a kubeconfig of its own points at (both mode 0600, removed on exit), and the controller runs with that kubeconfig,
 * `POD_NAMESPACE` set to the operator's namespace (where the chart grants the leader Lease),
 * `WATCH_NAMESPACE` and the container args as the chart's Deployment sets them. Flags after `--` are
 * appended (a later flag wins, e.g. `-- --metrics-bind-address=0`).
 *
 * Before the controller starts, a SelfSubjectReview made with the minted token prints who it runs as.
 * The token is short-lived (`--duration`), the controller is not: a new token replaces the file when 80 %
 * of the current one's lifetime has passed, and the controller re-reads its `token-file` once a minute (as
 * client-go does), so `run` keeps going for as long as you let it, without a restart.
 * Your own kubeconfig (`KUBECONFIG` / `~/.kube/config`) needs only the right to create tokens of
 * that ServiceAccount (`serviceaccounts/token` create).
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { loadClientNode, loadDefaultKubeConfig } from '../runtime/client-node';

/** Options of {@link runCommand}. */
export interface RunCommandOptions {
  /** Synth output holding the operator Deployment. @default 'dist' */
  readonly chart?: string;
  /** @default 'bundle/controller.js' */
  readonly bundle?: string;
  /** `<namespace>/<name>`. @default - the chart's operator Deployment's ServiceAccount */
  readonly serviceAccount?: string;
  /** Token lifetime in seconds (the apiserver's minimum is 600). @default 3600 */
  readonly durationSeconds?: number;
  /** When a new token replaces the current one. @default - after 80 % of `durationSeconds` */
  readonly refreshAfterMs?: number;
  /** Keep the minted kubeconfig here (and its token in `<file>.token`) instead of a temporary folder (removed on exit). */
  readonly kubeconfigOut?: string;
  /** Controller flags appended to the chart's args. */
  readonly extraArgs?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
}

/** The operator Deployment as the chart wrote it. */
export interface ChartOperator {
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly args: readonly string[];
  readonly watchNamespace?: string;
}

/** The operator container (named `manager`) of the one operator Deployment in a synth output. */
export function chartOperator(dir: string): ChartOperator {
  if (!fs.existsSync(dir)) throw new Error(`${dir}/ does not exist: run synth first`);
  const found: ChartOperator[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()) {
    for (const doc of yaml
      .parseAllDocuments(fs.readFileSync(path.join(dir, file), 'utf8'))
      .map((d) => d.toJS()) as any[]) {
      if (doc?.kind !== 'Deployment') continue;
      const pod = doc.spec?.template?.spec ?? {};
      const manager = (pod.containers ?? []).find((c: { name: string }) => c.name === 'manager');
      if (!manager) continue;
      found.push({
        namespace: doc.metadata?.namespace ?? 'default',
        serviceAccount: pod.serviceAccountName ?? 'default',
        args: manager.args ?? [],
        watchNamespace: (manager.env ?? []).find((e: { name: string }) => e.name === 'WATCH_NAMESPACE')?.value,
      });
    }
  }
  if (found.length !== 1) {
    throw new Error(
      `${dir}/ has ${found.length} operator Deployments (a container named 'manager'); give --service-account <namespace>/<name>`,
    );
  }
  return found[0];
}

/** Runs the command; resolves with the controller's exit code. */
export async function runCommand(options: RunCommandOptions, log: (line: string) => void): Promise<number> {
  const env = options.env ?? process.env;
  const bundle = options.bundle ?? 'bundle/controller.js';
  if (!fs.existsSync(bundle)) {
    throw new Error(`run: ${bundle} does not exist; build it with \`npx cdk8s-operator bundle src/main.ts\``);
  }
  let operator: ChartOperator;
  if (options.serviceAccount) {
    const m = /^([a-z0-9][-a-z0-9]*)\/([a-z0-9][-a-z0-9.]*)$/.exec(options.serviceAccount);
    if (!m) throw new Error(`run: --service-account must be <namespace>/<name>, got '${options.serviceAccount}'`);
    const fromChart = fs.existsSync(options.chart ?? 'dist') ? tryChart(options.chart ?? 'dist') : {};
    operator = {
      args: fromChart.args ?? [],
      watchNamespace: fromChart.watchNamespace,
      namespace: m[1],
      serviceAccount: m[2],
    };
  } else {
    operator = chartOperator(options.chart ?? 'dist');
  }
  const durationSeconds = options.durationSeconds ?? 3600;
  if (!Number.isInteger(durationSeconds) || durationSeconds < 600) {
    throw new Error(`run: --duration must be at least 600 seconds (the apiserver's minimum), got ${durationSeconds}`);
  }

  const kc = adminKubeConfig(env);
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('run: the current kubeconfig has no cluster');
  const mint = async (): Promise<string> => {
    const response = await apiRequest(
      kc,
      'POST',
      `/api/v1/namespaces/${operator.namespace}/serviceaccounts/${operator.serviceAccount}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: durationSeconds } },
    );
    if (response.code !== 201) {
      throw new Error(
        `run: TokenRequest for ServiceAccount ${operator.namespace}/${operator.serviceAccount} failed (${response.code}): ${response.body?.message ?? ''}` +
          (response.code === 404
            ? ' — apply the chart first (dist/APPLY.md)'
            : response.code === 403
              ? ' — your kubeconfig needs create on serviceaccounts/token in that namespace'
              : ''),
      );
    }
    return response.body.status.token;
  };
  const token = await mint();
  const ca = cluster.caData ?? (cluster.caFile ? fs.readFileSync(cluster.caFile).toString('base64') : undefined);
  const tmp = options.kubeconfigOut ? undefined : fs.mkdtempSync(path.join(os.tmpdir(), 'cdk8s-operator-run-'));
  const kubeconfig = options.kubeconfigOut ?? path.join(tmp!, 'kubeconfig');
  const tokenFile = path.resolve(`${kubeconfig}.token`);
  const minted = {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'operator',
    preferences: {},
    clusters: [
      {
        name: 'cluster',
        cluster: {
          server: cluster.server,
          ...(ca ? { 'certificate-authority-data': ca } : {}),
          ...(cluster.skipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [{ name: 'operator', user: { 'token-file': tokenFile } }],
    contexts: [{ name: 'operator', context: { cluster: 'cluster', user: 'operator', namespace: operator.namespace } }],
  };
  // Replaced whole (rename), so the controller never reads a half-written token.
  const writeToken = (value: string) => {
    fs.writeFileSync(`${tokenFile}.new`, value, { mode: 0o600 });
    fs.renameSync(`${tokenFile}.new`, tokenFile);
  };
  writeToken(token);
  fs.writeFileSync(kubeconfig, yaml.stringify(minted), { mode: 0o600 });
  const refreshAfterMs = options.refreshAfterMs ?? durationSeconds * 800;
  let refresh: NodeJS.Timeout | undefined;
  const scheduleRefresh = (inMs: number) => {
    refresh = setTimeout(() => {
      mint().then(
        (t) => {
          writeToken(t);
          log(`token of ${operator.namespace}/${operator.serviceAccount} refreshed`);
          scheduleRefresh(refreshAfterMs);
        },
        (err) => {
          log(`${(err as Error).message}; retrying in 30 s`);
          scheduleRefresh(Math.min(30_000, refreshAfterMs));
        },
      );
    }, inMs);
    refresh.unref();
  };
  scheduleRefresh(refreshAfterMs);
  try {
    const who = await selfSubjectReview(kubeconfig);
    log(
      `running ${bundle} as ${who} (token valid ${durationSeconds} s; namespace ${operator.namespace}; WATCH_NAMESPACE=${env.WATCH_NAMESPACE ?? operator.watchNamespace ?? ''})`,
    );
    const child = spawn(process.execPath, [bundle, ...operator.args, ...(options.extraArgs ?? [])], {
      stdio: 'inherit',
      env: {
        ...env,
        KUBECONFIG: kubeconfig,
        POD_NAMESPACE: operator.namespace,
        WATCH_NAMESPACE: env.WATCH_NAMESPACE ?? operator.watchNamespace ?? '',
      },
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGTERM', forward);
    process.on('SIGINT', forward);
    const code = await new Promise<number>((resolve) =>
      child.on('exit', (c, signal) => resolve(c ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1))),
    );
    process.off('SIGTERM', forward);
    process.off('SIGINT', forward);
    return code;
  } finally {
    clearTimeout(refresh);
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Your kubeconfig: `KUBECONFIG` of `env` (its first file) or, for the process's own environment, as kubectl finds it. */
function adminKubeConfig(env: NodeJS.ProcessEnv): import('@kubernetes/client-node').KubeConfig {
  if (env === process.env || !env.KUBECONFIG) return loadDefaultKubeConfig();
  const kc = new (loadClientNode().KubeConfig)();
  kc.loadFromFile(env.KUBECONFIG.split(path.delimiter)[0]);
  return kc;
}

function tryChart(dir: string): Partial<ChartOperator> {
  try {
    return chartOperator(dir);
  } catch {
    return {};
  }
}

/** Who a kubeconfig authenticates as (`authentication.k8s.io/v1` SelfSubjectReview, Kubernetes 1.28+). */
export async function selfSubjectReview(kubeconfigFile: string): Promise<string> {
  const kc = new (loadClientNode().KubeConfig)();
  kc.loadFromFile(kubeconfigFile);
  const res = await apiRequest(kc, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'SelfSubjectReview',
  });
  if (res.code !== 201) {
    throw new Error(`run: SelfSubjectReview with the minted token failed (${res.code}): ${res.body?.message ?? ''}`);
  }
  return res.body.status.userInfo.username;
}

/** One JSON request with a kubeconfig's server, TLS and credentials. */
async function apiRequest(
  kc: import('@kubernetes/client-node').KubeConfig,
  method: string,
  apiPath: string,
  body?: unknown,
): Promise<{ code: number; body: any }> {
  const cluster = kc.getCurrentCluster()!;
  const url = new URL(apiPath, cluster.server);
  const opts: https.RequestOptions = {
    method,
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
  };
  await kc.applyToHTTPSOptions(opts);
  return new Promise((resolve, reject) => {
    const req = https.request(url, opts, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = { message: text };
        }
        resolve({ code: res.statusCode ?? 0, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
