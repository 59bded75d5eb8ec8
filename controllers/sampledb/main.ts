/**
 * The SampleDB controller binary.
 *
 *   npx tsx controllers/sampledb/main.ts [--leader-elect] [--metrics-bind-address=:8080]
 *     [--health-probe-bind-address=:8081] [--concurrency=2] [--leader-election-namespace=ns]
 *
 * Kubeconfig: `KUBECONFIG` / `~/.kube/config`, else in-cluster. `WATCH_NAMESPACE` restricts the
 * watch to one namespace. SIGTERM/SIGINT shut down gracefully. Logs never carry credentials: the
 * controller logs keys and reasons, never object contents.
 */
import { createLogger, loadDefaultKubeConfig, Manager } from '../../runtime';
import { setupSampleDbController } from './controller';

/** Parsed command line. */
export interface SampleDbFlags {
  readonly leaderElect: boolean;
  readonly leaderElectionNamespace?: string;
  readonly metricsBindAddress: string;
  readonly healthProbeBindAddress: string;
  readonly concurrency: number;
  readonly namespace?: string;
}

const KNOWN = new Set(['leader-elect', 'leader-election-namespace', 'metrics-bind-address', 'health-probe-bind-address', 'concurrency']);

/** Parses flags (`--name=value`, `--name value`, boolean `--leader-elect`) and env. Throws on unknown flags. */
export function parseFlags(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): SampleDbFlags {
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m || !KNOWN.has(m[1])) throw new Error(`unknown flag '${argv[i]}'`);
    let value = m[2];
    if (value === undefined) value = m[1] === 'leader-elect' ? 'true' : argv[++i];
    if (value === undefined) throw new Error(`flag --${m[1]} needs a value`);
    values.set(m[1], value);
  }
  const concurrency = Number(values.get('concurrency') ?? '2');
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`--concurrency must be a positive integer, got '${values.get('concurrency')}'`);
  const leaderElect = values.get('leader-elect') ?? 'false';
  if (!['true', 'false'].includes(leaderElect)) throw new Error(`--leader-elect must be true or false, got '${leaderElect}'`);
  return {
    leaderElect: leaderElect === 'true',
    leaderElectionNamespace: values.get('leader-election-namespace'),
    metricsBindAddress: values.get('metrics-bind-address') ?? ':8080',
    healthProbeBindAddress: values.get('health-probe-bind-address') ?? ':8081',
    concurrency,
    namespace: env.WATCH_NAMESPACE || undefined,
  };
}

/** Builds and starts the manager; resolves once running. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<Manager> {
  const flags = parseFlags(argv);
  const logger = createLogger({ fields: { controller: 'sampledb' } });
  const manager = new Manager({
    kubeConfig: loadDefaultKubeConfig(),
    namespace: flags.namespace,
    logger,
    metricsBindAddress: flags.metricsBindAddress,
    healthProbeBindAddress: flags.healthProbeBindAddress,
    leaderElection: flags.leaderElect ? { leaseName: 'sampledb-operator-leader', namespace: flags.leaderElectionNamespace } : undefined,
  });
  setupSampleDbController(manager, { concurrency: flags.concurrency });
  manager.installSignalHandlers();
  logger.info('starting sampledb controller', { ...flags });
  await manager.start();
  return manager;
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(JSON.stringify({ ts: new Date().toISOString(), level: 'error', msg: 'sampledb controller failed', error: String(err) }) + '\n');
    process.exit(1);
  });
}
