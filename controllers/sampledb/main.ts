/**
 * The SampleDB controller binary.
 *
 *   npx tsx controllers/sampledb/main.ts [--leader-elect] [--metrics-bind-address=:8080]
 *     [--health-probe-bind-address=:8081] [--concurrency=2] [--leader-election-namespace=ns]
 *
 * Flags and environment are the runtime's shared ones (runtime/cli.ts). Logs never carry
 * credentials: the controller logs keys and reasons, never object contents.
 */
import { ControllerBinary, Manager, parseManagerFlags, runControllerBinary, startControllerBinary } from '../../runtime';
import { SAMPLEDB_CONTRACT } from './contract';
import { setupSampleDbController } from './controller';

export const SAMPLEDB_BINARY: ControllerBinary = {
  name: 'sampledb',
  leaseName: 'sampledb-operator-leader',
  contract: SAMPLEDB_CONTRACT,
  setup: (manager, flags) => setupSampleDbController(manager, { concurrency: flags.concurrency }),
};

/** Parses the binary's flags (the runtime's shared set). */
export const parseFlags = parseManagerFlags;

/** Builds and starts the manager; resolves once running. */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<Manager> {
  return startControllerBinary(SAMPLEDB_BINARY, argv);
}

if (require.main === module) runControllerBinary(SAMPLEDB_BINARY);
