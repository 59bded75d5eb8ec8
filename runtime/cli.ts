/**
 * The command line every controller binary shares (kubebuilder's flag names) and the start-up that
 * goes with it, so a binary's `main.ts` only names its controller.
 *
 * Flags: `--leader-elect[=true|false]`, `--leader-election-namespace`, `--metrics-bind-address`
 * (default `:8080`, `0` disables), `--health-probe-bind-address` (default `:8081`), `--concurrency`
 * (default 8: reconciles are mostly waiting on the apiserver, and a Node worker costs a promise, not a
 * thread; 2 workers left a Foo controller idle 80 % of the time, latency-bound), `--sharding-ring`,
 * `--sharding-key`, `--sharding-assignment`, `--sharding-ranges`, `--sharding-replicas` (a member of a shard ring,
 * sharding.ts), `--sharding-label-webhook` (also serve the ring's labelling webhook, shard-label-webhook.ts, at
 * `/label-shard-<ring>`). Environment: `WATCH_NAMESPACE`
 * (comma-separated namespaces, one informer per namespace; default: the contract's `watchNamespaces`, else all
 * namespaces). Webhooks (when the contract declares them): `--webhook-bind-address` (default `:9443`) and the
 * `WEBHOOK_*` variables the chart sets (runtime/webhook/webhook-settings.ts). Kubeconfig: `KUBECONFIG` /
 * `~/.kube/config`, else in-cluster. SIGTERM/SIGINT shut down gracefully.
 *
 * Guarantees:
 * - An unknown flag, a bad value or a malformed `WATCH_NAMESPACE` throws before anything connects.
 * - The binary's contract is checked while `setup` wires the controllers, before the manager starts:
 *   wiring it does not grant fails the start-up with a `ContractViolationError` (no request is made).
 * - `runControllerBinary` exits 1 with the error logged when the start-up fails.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { ControllerContract } from './contract';
import { createLogger, Logger } from './log';
import { Manager, ManagerOptions } from './manager';
import { shardLabelDefaulting } from './shard-label-webhook';
import { CertificateSource, staticCertificate } from './webhook/certificate-source';
import { SecretCertificateSource } from './webhook/secret-certificate-source';
import { SelfManagedCertificates } from './webhook/self-managed-certificates';
import { IN_CLUSTER_WEBHOOK_SHUTDOWN_DELAY_MS, webhookSettingsFromEnv } from './webhook/webhook-settings';
import { SHARD_ASSIGNMENTS, ShardAssignment, ShardRanges } from '../lib/apimachinery/controller-contract';
import { shardLabelWebhookPath } from '../lib/apimachinery/shard-label';

/** Parsed command line of a controller binary. */
export interface ManagerFlags {
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace?: string;
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  readonly concurrency: number;
  /** `--webhook-bind-address` (default `:9443`): where the webhook server listens when the binary serves webhooks. */
  readonly webhookBindAddress: string;
  /** `--sharding-ring=<name>`: run as a member of this shard ring (sharding.ts). @default - not sharded */
  readonly shardingRing?: string;
  /** `--sharding-key=uid|namespace`. @default 'uid' */
  readonly shardingKey: 'uid' | 'namespace';
  /**
   * `--sharding-assignment=labels|hash|server`: how members get their share (runtime `ManagerShardingOptions`).
   * @default - the contract's (`contract.sharding`), else `labels`
   */
  readonly shardingAssignment?: ShardAssignment;
  /**
   * `--sharding-ranges=even|namespaces`: how assignment `server` cuts the hash space (runtime `ManagerShardingOptions`).
   * @default - the contract's (`contract.sharding.ranges`), else `even`
   */
  readonly shardingRanges?: ShardRanges;
  /**
   * `--sharding-replicas=<n>`: the members the ring is deployed with (the chart's replicas); a starting member waits
   * for them, at most 10 s, before it starts its caches (runtime `ManagerShardingOptions.replicas`).
   * @default - no count
   */
  readonly shardingReplicas?: number;
  /**
   * `--sharding-label-webhook[=true|false]`: serve the ring's labelling webhook (the chart's MutatingWebhookConfiguration
   * for CREATE of the sharded kinds points at `/label-shard-<ring>`). Needs `--sharding-ring` and the labels assignment.
   * @default false
   */
  readonly shardingLabelWebhook: boolean;
  /** From `WATCH_NAMESPACE` (`team-a,team-b`). @default - unset */
  readonly namespaces?: readonly string[];
}

/** Parallel reconciles when `--concurrency` is not given. */
export const DEFAULT_CONCURRENCY = 8;

const KNOWN = new Set([
  'leader-elect',
  'leader-election-namespace',
  'metrics-bind-address',
  'health-probe-bind-address',
  'concurrency',
  'webhook-bind-address',
  'sharding-ring',
  'sharding-key',
  'sharding-assignment',
  'sharding-ranges',
  'sharding-replicas',
  'sharding-label-webhook',
]);

/** Flags that are true when given without a value. */
const BOOLEAN = new Set(['leader-elect', 'sharding-label-webhook']);

/** Parses flags (`--name=value`, `--name value`, boolean `--leader-elect`) and env. Throws on unknown flags. */
export function parseManagerFlags(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ManagerFlags {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !KNOWN.has(m[1])) throw new Error(`unknown flag '${argv[i]}'`);
    let value = m[2];
    if (value === undefined) value = BOOLEAN.has(m[1]) ? 'true' : argv[++i];
    if (value === undefined) throw new Error(`flag --${m[1]} needs a value`);
    values.set(m[1], value);
  }
  const concurrency = Number(values.get('concurrency') ?? String(DEFAULT_CONCURRENCY));
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new Error(`--concurrency must be a positive integer, got '${values.get('concurrency')}'`);
  }
  for (const flag of BOOLEAN) {
    const value = values.get(flag);
    if (value !== undefined && !['true', 'false'].includes(value)) {
      throw new Error(`--${flag} must be true or false, got '${value}'`);
    }
  }
  const shardingLabelWebhook = values.get('sharding-label-webhook') === 'true';
  if (shardingLabelWebhook && !values.get('sharding-ring')) {
    throw new Error('--sharding-label-webhook needs --sharding-ring (the webhook labels objects with their member)');
  }
  const shardingKey = values.get('sharding-key') ?? 'uid';
  if (shardingKey !== 'uid' && shardingKey !== 'namespace') {
    throw new Error(`--sharding-key must be uid or namespace, got '${shardingKey}'`);
  }
  const shardingAssignment = values.get('sharding-assignment');
  if (shardingAssignment !== undefined && !SHARD_ASSIGNMENTS.includes(shardingAssignment as ShardAssignment)) {
    throw new Error(`--sharding-assignment must be ${SHARD_ASSIGNMENTS.join(', ')}, got '${shardingAssignment}'`);
  }
  const shardingRanges = values.get('sharding-ranges');
  if (shardingRanges !== undefined && shardingRanges !== 'even' && shardingRanges !== 'namespaces') {
    throw new Error(`--sharding-ranges must be even or namespaces, got '${shardingRanges}'`);
  }
  const shardingReplicasFlag = values.get('sharding-replicas');
  const shardingReplicas = shardingReplicasFlag === undefined ? undefined : Number(shardingReplicasFlag);
  if (shardingReplicas !== undefined && !(Number.isInteger(shardingReplicas) && shardingReplicas >= 1)) {
    throw new Error(`--sharding-replicas must be a positive integer, got '${shardingReplicasFlag}'`);
  }
  return {
    shardingRing: values.get('sharding-ring'),
    shardingRanges: shardingRanges as ShardRanges | undefined,
    shardingReplicas,
    shardingKey,
    shardingAssignment: shardingAssignment as ShardAssignment | undefined,
    shardingLabelWebhook,
    leaderElect: values.get('leader-elect') === 'true',
    leaderElectionNamespace: values.get('leader-election-namespace'),
    metricsBindAddress: values.get('metrics-bind-address') ?? ':8080',
    healthProbeBindAddress: values.get('health-probe-bind-address') ?? ':8081',
    webhookBindAddress: values.get('webhook-bind-address') ?? ':9443',
    concurrency,
    namespaces: parseWatchNamespace(env.WATCH_NAMESPACE),
  };
}

/** `WATCH_NAMESPACE` as a list: comma-separated, blanks ignored; unset or empty = undefined (all namespaces). */
export function parseWatchNamespace(value: string | undefined): readonly string[] | undefined {
  const namespaces = (value ?? '')
    .split(',')
    .map((ns) => ns.trim())
    .filter(Boolean);
  namespaces.forEach((ns) => {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) {
      throw new Error(`WATCH_NAMESPACE: '${ns}' is not a namespace name (a DNS label), in '${value}'`);
    }
  });
  return namespaces.length ? namespaces : undefined;
}

/** What a controller binary adds to the shared start-up. */
export interface ControllerBinary {
  /** Name in logs, e.g. `foo`. */
  readonly name: string;
  /** Lease used with `--leader-elect`. */
  readonly leaseName: string;
  /**
   * What the binary's controllers may do (the chart derives RBAC from the same object); wiring
   * beyond it fails the start-up. @default - unchecked
   */
  readonly contract?: ControllerContract;
  /**
   * More manager options, e.g. a webhook server (`conversionBinary(...).managerOptions`). A function the binary
   * supplies, so a binary without webhooks never bundles their modules.
   * @default - none
   */
  readonly managerOptions?: (logger: Logger) => Partial<ManagerOptions>;
  /**
   * Serve a webhook server even when the contract declares no admission webhooks.
   * @default - when the contract declares webhooks
   */
  readonly webhookServer?: boolean;
  /** Registers the binary's controllers (and webhook handlers) on the manager. */
  setup(manager: Manager, flags: ManagerFlags): void;
}

/** Parses the command line, builds and starts the manager; resolves once running. */
export async function startControllerBinary(
  binary: ControllerBinary,
  argv: readonly string[] = process.argv.slice(2),
): Promise<Manager> {
  const flags = parseManagerFlags(argv);
  const logger = createLogger({ fields: { controller: binary.name } });
  // A binary may bring its own webhook server (conversionBinary): it then also rotates the certificates for the
  // admission webhooks (one Secret, one CA), and this start-up adds none.
  const extra = binary.managerOptions?.(logger) ?? {};
  const wantsWebhooks =
    !extra.webhookServer &&
    (binary.webhookServer ?? ((binary.contract?.webhooks?.length ?? 0) > 0 || flags.shardingLabelWebhook));
  const webhooks = wantsWebhooks ? webhookSettingsFromEnv() : undefined;
  if (wantsWebhooks && !webhooks) {
    logger.warn(
      'webhooks are declared but not served: WEBHOOK_CERT_SECRET is not set (the chart sets it; outside a cluster run them with envtest)',
    );
  }
  let source: SecretCertificateSource | undefined;
  const manager = new Manager({
    namespaces: flags.namespaces,
    contract: binary.contract,
    logger,
    metricsBindAddress: flags.metricsBindAddress,
    // every controller that sets no concurrency of its own runs --concurrency workers
    concurrency: flags.concurrency,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    leaderElection: flags.leaderElect
      ? { leaseName: binary.leaseName, namespace: flags.leaderElectionNamespace }
      : undefined,
    sharding: flags.shardingRing
      ? {
          ring: flags.shardingRing,
          key: flags.shardingKey,
          assignment: flags.shardingAssignment,
          ranges: flags.shardingRanges,
          replicas: flags.shardingReplicas,
          namespace: flags.leaderElectionNamespace,
        }
      : undefined,
    ...(extra.webhookServer
      ? {}
      : {
          webhookServer: webhooks && {
            bindAddress: flags.webhookBindAddress,
            shutdownDelayMs: IN_CLUSTER_WEBHOOK_SHUTDOWN_DELAY_MS,
            certificates:
              webhooks.certificates === 'files'
                ? certificateFiles(webhooks.certDir!)
                : (client) =>
                    (source = new SecretCertificateSource({
                      client,
                      namespace: webhooks.namespace,
                      secretName: webhooks.secretName,
                      reloadIntervalMs: webhooks.reloadIntervalMs,
                      requireInjected: webhooks.certificates === 'self-managed',
                      logger: logger.child({ component: 'webhook-certificates' }),
                    })),
          },
        }),
    ...extra,
  });
  binary.setup(manager, flags);
  if (flags.shardingLabelWebhook) serveShardLabelWebhook(manager, flags.shardingRing!, logger);
  if (webhooks?.certificates === 'self-managed') {
    // The leader issues, rotates and injects; every replica (this one too) serves from the Secret.
    const certificates = new SelfManagedCertificates({
      client: manager.client,
      namespace: webhooks.namespace,
      secretName: webhooks.secretName,
      dnsNames: webhooks.dnsNames,
      targets: webhooks.inject,
      caValidityMs: webhooks.caValidityMs,
      servingValidityMs: webhooks.servingValidityMs,
      checkIntervalMs: webhooks.checkIntervalMs,
      caPropagationMs: webhooks.caPropagationMs,
      onSecretWritten: () => source?.reload(),
      logger: logger.child({ component: 'webhook-certificates' }),
    });
    void manager.elected.then(() => certificates.start());
  }
  manager.installSignalHandlers();
  logger.info(`starting ${binary.name} controller`, { ...flags });
  await manager.start();
  return manager;
}

/**
 * `--sharding-label-webhook`: the ring's labelling webhook on the manager's webhook server, at the path the chart's
 * configuration names. Without a webhook server (run outside the chart: no `WEBHOOK_*` environment) or with an
 * assignment that writes no label, it is not served, and said so: the webhook's `failurePolicy: Ignore` admits the
 * creates unlabelled and the assigner labels them, as without the webhook.
 */
function serveShardLabelWebhook(manager: Manager, ring: string, logger: Logger): void {
  if (manager.shardAssignment !== 'labels') {
    throw new Error(
      `--sharding-label-webhook needs the labels assignment, got '${manager.shardAssignment}' (nothing is labelled)`,
    );
  }
  if (!manager.webhookServer) {
    logger.warn('the shard labelling webhook is not served: no webhook server (WEBHOOK_CERT_SECRET is not set)');
    return;
  }
  manager.webhookServer.defaulting(shardLabelWebhookPath(ring), shardLabelDefaulting(manager));
}

/** A fixed certificate from `<dir>/tls.crt` and `<dir>/tls.key` (WEBHOOK_CERTIFICATES=files). */
function certificateFiles(dir: string): CertificateSource {
  return staticCertificate({
    cert: readFileSync(join(dir, 'tls.crt'), 'utf8'),
    key: readFileSync(join(dir, 'tls.key'), 'utf8'),
  });
}

/** Runs a binary as the process's main module: a failed start is logged as JSON and exits 1. */
export function runControllerBinary(binary: ControllerBinary): void {
  startControllerBinary(binary).catch((err) => {
    process.stderr.write(
      JSON.stringify({
        ts: new Date().toISOString(),
        level: 'error',
        msg: `${binary.name} controller failed`,
        error: String(err),
      }) + '\n',
    );
    process.exit(1);
  });
}
