/**
 * The Foo controller binary.
 *
 *   npx tsx controllers/foo/main.ts [--leader-elect] [--metrics-bind-address=:8080]
 *     [--health-probe-bind-address=:8081] [--concurrency=8] [--leader-election-namespace=ns]
 *
 * Flags and environment are the runtime's shared ones (runtime/cli.ts).
 */
import { FOO_CONTRACT } from './contract';
import { setupFooController } from './controller';
import {
  ControllerBinary,
  Manager,
  parseManagerFlags,
  runControllerBinary,
  startControllerBinary,
} from '../../runtime';

export const FOO_BINARY: ControllerBinary = {
  name: 'foo',
  leaseName: 'foo-controller-leader',
  contract: FOO_CONTRACT,
  setup: (manager, flags) => setupFooController(manager, { concurrency: flags.concurrency }),
};

/** Parses the binary's flags (the runtime's shared set). */
export const parseFlags = parseManagerFlags;

/** Builds and starts the manager; resolves once running. */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<Manager> {
  return startControllerBinary(FOO_BINARY, argv);
}

if (require.main === module) runControllerBinary(FOO_BINARY);
