/**
 * The SampleDB controller binary.
 *
 *   npx tsx controllers/sampledb/main.ts [--leader-elect] [--metrics-bind-address=:8080]
 *     [--health-probe-bind-address=:8081] [--concurrency=2] [--leader-election-namespace=ns]
 *
 * Flags and environment are the runtime's shared ones (runtime/cli.ts). Logs never carry
 * credentials: the controller logs keys and reasons, never object contents.
 */
import { SAMPLEDB_CONTRACT } from './contract';
import { setupSampleDbController } from './controller';
import { SAMPLEDB_CONVERSION } from './conversion';
import { SAMPLEDB } from './types';
import {
  ControllerBinary,
  conversionBinary,
  Manager,
  parseManagerFlags,
  runControllerBinary,
  startControllerBinary,
} from '../../runtime';

/** v1 (0.1.0) ↔ v2 through the operator's webhook; the leader migrates v1-stored objects to v2. */
const CONVERSION = conversionBinary([{ conversion: SAMPLEDB_CONVERSION, resource: SAMPLEDB }]);

export const SAMPLEDB_BINARY: ControllerBinary = {
  name: 'sampledb',
  leaseName: 'sampledb-operator-leader',
  contract: SAMPLEDB_CONTRACT,
  managerOptions: CONVERSION.managerOptions,
  setup: (manager, flags) => {
    CONVERSION.setup(manager);
    setupSampleDbController(manager, { concurrency: flags.concurrency });
  },
};

/** Parses the binary's flags (the runtime's shared set). */
export const parseFlags = parseManagerFlags;

/** Builds and starts the manager; resolves once running. */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<Manager> {
  return startControllerBinary(SAMPLEDB_BINARY, argv);
}

if (require.main === module) runControllerBinary(SAMPLEDB_BINARY);
