// A fresh real control plane (etcd + kube-apiserver from KUBEBUILDER_ASSETS) for one benchmark run:
// etcd's data on tmpfs (/dev/shm) so the disk of a shared machine does not decide the result, the
// controller under test authenticated as its own ServiceAccount, and an audit log that records only
// that identity's requests — the apiserver's own count of what the controller asked for.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ControlPlane } from '../runtime/envtest';
import { assetsFor, ORACLE_VERSIONS, OracleVersion } from '../test/envtest';

/** The identity the measured controller runs as (audit log filter). */
const CONTROLLER_SA = { namespace: 'default', name: 'bench-controller' };
export const CONTROLLER_USER = `system:serviceaccount:${CONTROLLER_SA.namespace}:${CONTROLLER_SA.name}`;

/** Where etcd and the audit log live: memory, when the machine has a tmpfs there. */
const BASE_DIR = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

export interface BenchControlPlane {
  readonly plane: ControlPlane;
  /** Kubeconfig of the controller under test (a cluster-admin ServiceAccount token). */
  readonly controllerKubeconfig: string;
  /** JSON lines, one per controller request (see {@link readAudit}). */
  readonly auditLog: string;
  close(): Promise<void>;
}

/** One request of the controller as the apiserver audited it. */
export interface AuditedRequest {
  readonly verb: string;
  /** `resource` or `resource/subresource`. */
  readonly resource: string;
  readonly code: number;
  /** When the apiserver received it (ms since epoch). */
  readonly receivedMs: number;
  /** How long the apiserver took until the audited stage (response complete; started for watches). */
  readonly latencyMs: number;
  /** The request asked for a shard selector (`?shardSelector=`, KEP-5866; runtime shard-ranges.ts). */
  readonly shardSelector?: boolean;
}

/** Which control plane a run starts. */
export interface BenchControlPlaneOptions {
  /** Folder of the binaries. @default process.env.KUBEBUILDER_ASSETS */
  readonly assetsDir?: string;
  /** More kube-apiserver flags (e.g. `--feature-gates=...`). @default [] */
  readonly apiServerFlags?: readonly string[];
}

/**
 * The binaries of a Kubernetes version: an oracle version's from the variables the tests read (`assetsFor`), else
 * what the machine's install script unpacks (idempotent; its last line is the folder): ../shared/k8s/install.sh
 * beside the clone (benchmarks run on the machine that has the binaries; the tests read only the variables).
 */
export function kubernetesAssetsDir(version: string): string {
  const named = (ORACLE_VERSIONS as readonly string[]).includes(version)
    ? assetsFor(version as OracleVersion)
    : undefined;
  if (named && 'dir' in named) return named.dir;
  const script = path.join(__dirname, '..', '..', 'shared', 'k8s', 'install.sh');
  const out = execFileSync('bash', [script, '--version', version], { encoding: 'utf8' }).trim().split('\n');
  return out[out.length - 1];
}

const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
# Long-running requests (watches) are logged when their response starts; everything else when complete.
omitStages: [RequestReceived]
rules:
- level: Metadata
  users: ["${CONTROLLER_USER}"]
- level: None
`;

export async function startBenchControlPlane(
  crds: object[],
  options: BenchControlPlaneOptions = {},
): Promise<BenchControlPlane> {
  const dir = fs.mkdtempSync(path.join(BASE_DIR, 'foo-bench-'));
  const auditLog = path.join(dir, 'audit.log');
  fs.writeFileSync(path.join(dir, 'audit-policy.yaml'), AUDIT_POLICY);
  let plane: ControlPlane | undefined;
  const close = async () => {
    await plane?.stop();
    // BENCH_KEEP_AUDIT=<folder>: keep each run's audit log there (a request timeline, for finding where time goes).
    if (process.env.BENCH_KEEP_AUDIT && fs.existsSync(auditLog)) {
      fs.copyFileSync(auditLog, path.join(process.env.BENCH_KEEP_AUDIT, `${path.basename(dir)}.log`));
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    plane = await ControlPlane.start({
      crds,
      startTimeoutMs: 120_000,
      baseDir: BASE_DIR,
      assetsDir: options.assetsDir,
      apiServerFlags: [
        `--audit-policy-file=${path.join(dir, 'audit-policy.yaml')}`,
        `--audit-log-path=${auditLog}`,
        '--audit-log-maxsize=0',
        ...(options.apiServerFlags ?? []),
      ],
    });
    const identity = await plane.serviceAccount(CONTROLLER_SA.namespace, CONTROLLER_SA.name, 7200);
    const bound = await plane.request('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: CONTROLLER_SA.name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'ServiceAccount', namespace: CONTROLLER_SA.namespace, name: CONTROLLER_SA.name }],
    });
    if (bound.code !== 201) {
      throw new Error(`bench: binding ${CONTROLLER_USER} failed (${bound.code}): ${JSON.stringify(bound.body)}`);
    }
    const controllerKubeconfig = path.join(dir, 'controller.kubeconfig');
    plane.writeKubeconfig(controllerKubeconfig, identity);
    return { plane, controllerKubeconfig, auditLog, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * The audit log's files, oldest first: the apiserver rotates its log at 100 MiB whatever
 * `--audit-log-maxsize` says (0 means lumberjack's default), keeping `audit-<timestamp>.log` beside
 * it. Each file is read on its own, which also keeps every string under V8's length limit.
 */
export function auditLogFiles(auditLog: string): string[] {
  const dir = path.dirname(auditLog);
  const ext = path.extname(auditLog);
  const base = path.basename(auditLog, ext);
  const rotated = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.startsWith(`${base}-`) && f.endsWith(ext))
        .sort()
        .map((f) => path.join(dir, f))
    : [];
  return [...rotated, ...(fs.existsSync(auditLog) ? [auditLog] : [])];
}

/** The controller's requests from the audit log and its rotated files (one entry per request). */
export function readAudit(auditLog: string): AuditedRequest[] {
  const seen = new Set<string>();
  const out: AuditedRequest[] = [];
  for (const file of auditLogFiles(auditLog)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      const e = JSON.parse(line);
      if (e.user?.username !== CONTROLLER_USER || seen.has(e.auditID)) continue;
      seen.add(e.auditID);
      const ref = e.objectRef ?? {};
      out.push({
        verb: e.verb,
        resource: ref.subresource ? `${ref.resource}/${ref.subresource}` : (ref.resource ?? e.requestURI),
        code: e.responseStatus?.code ?? 0,
        receivedMs: Date.parse(e.requestReceivedTimestamp),
        latencyMs: Date.parse(e.stageTimestamp) - Date.parse(e.requestReceivedTimestamp) || 0,
        ...(/[?&]shardSelector=/.test(e.requestURI ?? '') ? { shardSelector: true } : {}),
      });
    }
  }
  return out;
}

/** Counts requests by `verb resource`. */
export function countRequests(requests: readonly AuditedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => a.localeCompare(b)));
}

/** Mean apiserver latency in ms by `verb resource` (watches excluded: they last until closed). */
export function meanLatency(requests: readonly AuditedRequest[]): Record<string, number> {
  const sums = new Map<string, { total: number; count: number }>();
  for (const r of requests) {
    if (r.verb === 'watch') continue;
    const key = `${r.verb} ${r.resource}`;
    const s = sums.get(key) ?? { total: 0, count: 0 };
    s.total += r.latencyMs;
    s.count++;
    sums.set(key, s);
  }
  return Object.fromEntries(
    [...sums].sort(([a], [b]) => a.localeCompare(b)).map(([k, s]) => [k, Math.round((s.total / s.count) * 10) / 10]),
  );
}

export const WRITE_VERBS: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
