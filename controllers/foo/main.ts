/**
 * The Foo controller binary.
 *
 *   npx tsx controllers/foo/main.ts [--leader-elect] [--metrics-bind-address=:8080]
 *     [--health-probe-bind-address=:8081] [--concurrency=8] [--leader-election-namespace=ns]
 *     [--sharding-ring=foo --sharding-key=uid|namespace [--sharding-label-webhook] [--sharding-ranges=namespaces]]
 *
 * Flags and environment are the runtime's shared ones (runtime/cli.ts). With `--sharding-ring` the binary declares
 * `FOO_SHARDED_CONTRACT` (the chart of a sharded Foo operator grants it), else `FOO_CONTRACT`.
 */
import { FOO_CONTRACT, FOO_RANGES_CONTRACT, FOO_SHARDED_CONTRACT } from './contract';
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

/** The binary run as a member of a shard ring: its contract adds the ring's Leases and the shard label. */
export const FOO_SHARDED_BINARY: ControllerBinary = { ...FOO_BINARY, contract: FOO_SHARDED_CONTRACT };

/** The binary run with the ring's ranges cut by the namespaces (`--sharding-ranges=namespaces`). */
export const FOO_RANGES_BINARY: ControllerBinary = { ...FOO_BINARY, contract: FOO_RANGES_CONTRACT };

/** The binary a command line runs: sharded when it names a ring (`--sharding-ring`). */
export function fooBinary(argv: readonly string[]): ControllerBinary {
  const ranges = argv.findIndex((a) => /^--?sharding-ranges(=|$)/.test(a));
  if (ranges >= 0 && (argv[ranges].split('=')[1] ?? argv[ranges + 1]) === 'namespaces') return FOO_RANGES_BINARY;
  return argv.some((a) => /^--?sharding-ring(=|$)/.test(a)) ? FOO_SHARDED_BINARY : FOO_BINARY;
}

/** Parses the binary's flags (the runtime's shared set). */
export const parseFlags = parseManagerFlags;

/** Builds and starts the manager; resolves once running. */
export function main(argv: readonly string[] = process.argv.slice(2)): Promise<Manager> {
  return startControllerBinary(fooBinary(argv), argv);
}

if (require.main === module) runControllerBinary(fooBinary(process.argv.slice(2)));
