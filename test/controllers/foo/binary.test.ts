import { FOO_CONTRACT, FOO_RANGES_CONTRACT, FOO_SHARDED_CONTRACT } from '../../../controllers/foo/contract';
import { FOO_BINARY, FOO_RANGES_BINARY, FOO_SHARDED_BINARY, fooBinary } from '../../../controllers/foo/main';
import { contractShardAssignment, contractShardRanges } from '../../../lib/apimachinery/controller-contract';

describe('the Foo binary declares the contract its command line needs', () => {
  test("unsharded: the demo chart's contract, with no ring Leases nor shard label", () => {
    expect(fooBinary(['--leader-elect', '--metrics-bind-address=:8080'])).toBe(FOO_BINARY);
    expect(FOO_BINARY.contract).toBe(FOO_CONTRACT);
    expect(FOO_CONTRACT).not.toHaveProperty('sharding');
  });

  test('with --sharding-ring (either form): the sharded contract, the labels assignment', () => {
    expect(fooBinary(['--sharding-ring=foo', '--sharding-key=namespace'])).toBe(FOO_SHARDED_BINARY);
    expect(fooBinary(['--sharding-ring', 'foo'])).toBe(FOO_SHARDED_BINARY);
    expect(fooBinary(['--sharding-ringx=foo'])).toBe(FOO_BINARY);
    expect(FOO_SHARDED_BINARY.contract).toBe(FOO_SHARDED_CONTRACT);
    expect(contractShardAssignment(FOO_SHARDED_CONTRACT)).toBe('labels');
    // Everything else is the Foo contract's.
    expect({ ...FOO_SHARDED_CONTRACT, sharding: undefined }).toEqual({ ...FOO_CONTRACT, sharding: undefined });
  });

  test('with --sharding-ranges=namespaces (either form): assignment server, the namespaces read, no shard label', () => {
    const ring = ['--sharding-ring=foo', '--sharding-key=namespace'];
    expect(fooBinary([...ring, '--sharding-ranges=namespaces'])).toBe(FOO_RANGES_BINARY);
    expect(fooBinary([...ring, '--sharding-ranges', 'namespaces'])).toBe(FOO_RANGES_BINARY);
    expect(fooBinary([...ring, '--sharding-ranges=even'])).toBe(FOO_SHARDED_BINARY);
    expect(FOO_RANGES_BINARY.contract).toBe(FOO_RANGES_CONTRACT);
    expect([contractShardAssignment(FOO_RANGES_CONTRACT), contractShardRanges(FOO_RANGES_CONTRACT)]).toEqual([
      'server',
      'namespaces',
    ]);
    expect({ ...FOO_RANGES_CONTRACT, sharding: undefined }).toEqual({ ...FOO_CONTRACT, sharding: undefined });
  });
});
