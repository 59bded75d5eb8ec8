/**
 * The monitoring operator binary (Prometheus and Alertmanager from prometheus-operator's CRDs).
 *
 *   npx tsx controllers/monitoring/main.ts [--leader-elect] [--metrics-bind-address=:8080] [--health-probe-bind-address=:8081]
 *
 * Flags and environment are the runtime's shared ones (runtime/cli.ts), plus `MONITORING_RELOADER_IMAGE`: the
 * image of the config-reloader sidecar (the chart sets it to this operator's own image), and
 * `MONITORING_DISCOVERY`: `kubernetes` (default, upstream's `kubernetes_sd_configs`) or `file` (the operator's
 * own discovery, for Prometheus builds without Kubernetes discovery such as Debian's; see discovery.ts).
 */
import { MONITORING_CONTRACT } from './contract';
import { setupMonitoringControllers } from './controller';
import { DiscoveryMode } from './promcfg';
import { ControllerBinary, Manager, runControllerBinary, startControllerBinary } from '../../runtime';

/** The sidecar image when MONITORING_RELOADER_IMAGE is not set (controllers/images.ts' name of this image). */
export const DEFAULT_RELOADER_IMAGE = 'ghcr.io/cdk8s-operator/monitoring-controller:0.1.0';

export const MONITORING_BINARY: ControllerBinary = {
  name: 'monitoring',
  leaseName: 'monitoring-controller-leader',
  contract: MONITORING_CONTRACT,
  setup: (manager, flags) => {
    setupMonitoringControllers(manager, {
      reloaderImage: process.env.MONITORING_RELOADER_IMAGE ?? DEFAULT_RELOADER_IMAGE,
      discovery: parseDiscovery(process.env.MONITORING_DISCOVERY),
      concurrency: flags.concurrency,
    });
  },
};

/** `MONITORING_DISCOVERY`; anything but the two modes is refused at start-up, naming the value. */
export function parseDiscovery(value: string | undefined): DiscoveryMode {
  if (value === undefined || value === '' || value === 'kubernetes') return 'kubernetes';
  if (value === 'file') return 'file';
  throw new Error(`MONITORING_DISCOVERY must be 'kubernetes' or 'file', got '${value}'`);
}

/** Builds and starts the manager; resolves once running. */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<Manager> {
  return startControllerBinary(MONITORING_BINARY, argv);
}

if (require.main === module) runControllerBinary(MONITORING_BINARY);
