/**
 * How assignment `server` deals its 128 hash buckets (runtime/shard-ranges.ts `bucketOwner`, sharding.ts
 * `boundedRendezvous`): evenly, the same on every member, and moving little when a member comes or goes.
 */
import { randomUUID } from 'crypto';
import { bucketKey, bucketOf, bucketOwner, SHARD_BUCKETS } from '../../runtime/shard-ranges';
import { boundedRendezvous, memberLeaseName, rendezvousOwner } from '../../runtime/sharding';

const BUCKETS = Array.from({ length: SHARD_BUCKETS }, (_, b) => bucketKey(b));
/** Member names as the ring makes them (`<ring>-<hash of the identity>`), from made-up pod names. */
const members = (n: number, seed = 'pod') =>
  Array.from({ length: n }, (_, i) => memberLeaseName('foo', `${seed}-${i}`)).sort();

function loads(owner: (key: string) => string | undefined, names: readonly string[]): number[] {
  const count = new Map(names.map((m) => [m, 0]));
  for (const b of BUCKETS) count.set(owner(b)!, count.get(owner(b)!)! + 1);
  return [...count.values()].sort((x, y) => x - y);
}

describe('the hash buckets of assignment server', () => {
  test('each of 1 to 9 members holds at most ceil(128 / members) buckets, and every bucket has one owner', () => {
    for (let n = 1; n <= 9; n++) {
      for (const seed of ['pod', 'node', 'replica']) {
        const names = members(n, seed);
        const counts = loads((b) => bucketOwner(b, names), names);
        expect(counts.reduce((x, y) => x + y, 0)).toBe(SHARD_BUCKETS);
        expect(Math.max(...counts)).toBeLessThanOrEqual(Math.ceil(SHARD_BUCKETS / n));
        expect(Math.min(...counts)).toBeGreaterThanOrEqual(SHARD_BUCKETS - (n - 1) * Math.ceil(SHARD_BUCKETS / n));
      }
    }
  });

  test('four members get 32 each, where plain rendezvous hashing deals them unevenly', () => {
    let uneven = 0;
    for (const seed of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
      const names = members(4, seed);
      expect(loads((b) => bucketOwner(b, names), names)).toEqual([32, 32, 32, 32]);
      if (Math.max(...loads((b) => rendezvousOwner(b, names), names)) > 34) uneven++;
    }
    // the reason for the bound: most rings of 4 would have a member with 35 or more of 128 buckets
    expect(uneven).toBeGreaterThanOrEqual(4);
  });

  test('every member computes the same table, whatever order it lists the members in', () => {
    const names = members(5);
    const table = boundedRendezvous(BUCKETS, names);
    expect(boundedRendezvous(BUCKETS, [...names].reverse())).toEqual(table);
    for (const b of BUCKETS) expect(bucketOwner(b, names)).toBe(table.get(b));
  });

  test('a member joining takes its share and moves few buckets between the others (leaving: the same, reversed)', () => {
    for (const seed of ['a', 'b', 'c']) {
      for (let n = 2; n <= 6; n++) {
        const before = members(n, seed);
        const after = members(n + 1, seed);
        const joiner = after.find((m) => !before.includes(m))!;
        const [x, y] = [boundedRendezvous(BUCKETS, before), boundedRendezvous(BUCKETS, after)];
        const moved = BUCKETS.filter((b) => x.get(b) !== y.get(b));
        const toJoiner = moved.filter((b) => y.get(b) === joiner).length;
        expect(toJoiner).toBeGreaterThanOrEqual(Math.floor(SHARD_BUCKETS / (n + 1)) - 1);
        // what moved between the members already there: at most a third of what the joiner took (0 to 7 here)
        expect(moved.length - toJoiner).toBeLessThanOrEqual(Math.ceil(toJoiner / 3));
      }
    }
  });

  test('a key that is not a bucket goes to its rendezvous owner', () => {
    const names = members(3);
    expect(bucketOwner('some-namespace', names)).toBe(rendezvousOwner('some-namespace', names));
    expect(bucketOwner(bucketKey(0), [])).toBeUndefined();
  });
});

describe('what the server hashes', () => {
  test('namespaces that differ only in their last characters share a bucket (FNV-1a top bits)', () => {
    // docs/sharding.md "Namespaces with similar names share a range": the benchmark's 1,000 namespaces
    const buckets = new Set(Array.from({ length: 1000 }, (_, i) => bucketOf(`foo-${i}`)));
    expect(buckets.size).toBe(11);
    // 1,000 UIDs spread over nearly every bucket
    const uids = new Set(Array.from({ length: 1000 }, () => bucketOf(randomUUID())));
    expect(uids.size).toBeGreaterThan(120);
  });
});
