/**
 * Range tables of assignment `server` with `ranges: 'namespaces'` (runtime/shard-ranges.ts): buckets whose hash
 * ranges hold equal counts of the namespaces, where equal slices of the hash space follow the names.
 */
import { randomBytes } from 'node:crypto';
import {
  balancedCuts,
  bucketBounds,
  bucketKey,
  bucketOf,
  bucketOfHash,
  bucketOwner,
  decodeTable,
  encodeCuts,
  fnv1a64,
  hashKey,
  namesPerMember,
  SHARD_BUCKETS,
  shardRangeSelector,
} from '../../runtime/shard-ranges';
import { memberLeaseName } from '../../runtime/sharding';

const membersOf = (n: number, seed = 0) =>
  Array.from({ length: n }, (_, i) => memberLeaseName('foo', `replica-${seed}-${i}`)).sort();
const tenants = (n: number) => Array.from({ length: n }, (_, i) => `foo-${i}`);
const randomHash = () => randomBytes(8).readBigUInt64BE();

describe('balanced cuts', () => {
  test('1,000 namespaces named foo-0 … foo-999: 250 each for 4 members, where equal slices give up to 40 %', () => {
    for (let seed = 0; seed < 4; seed++) {
      const members = membersOf(4, seed);
      const names = tenants(1000);
      expect(namesPerMember(names, members, balancedCuts(names, members))).toEqual([250, 250, 250, 250]);
      // the equal slices of the top bits: 11 populated buckets (shard-buckets.test.ts), so the shares follow the names
      expect(Math.max(...namesPerMember(names, members))).toBeGreaterThan(275);
    }
  });

  test('fewer namespaces than buckets still split evenly: 30 over 2 and 3 members, 7 over 4', () => {
    const names = [...tenants(24), 'default', 'kube-system', 'kube-public', 'kube-node-lease', 'monitoring', 'ops'];
    for (let seed = 0; seed < 5; seed++) {
      expect(namesPerMember(names, membersOf(2, seed), balancedCuts(names, membersOf(2, seed)))).toEqual([15, 15]);
      expect(namesPerMember(names, membersOf(3, seed), balancedCuts(names, membersOf(3, seed)))).toEqual([10, 10, 10]);
      const few = names.slice(0, 7);
      const counts = namesPerMember(few, membersOf(4, seed), balancedCuts(few, membersOf(4, seed)));
      expect(counts.sort()).toEqual([1, 2, 2, 2]);
    }
  });

  test('without members, every bucket an equal count', () => {
    const names = tenants(1280);
    const table = balancedCuts(names);
    const perBucket = new Map<number, number>();
    for (const n of names) {
      const b = bucketOfHash(fnv1a64(n), table);
      perBucket.set(b, (perBucket.get(b) ?? 0) + 1);
    }
    expect([...perBucket.values()].every((c) => c === 10)).toBe(true);
    expect(perBucket.size).toBe(SHARD_BUCKETS);
  });
});

describe('a table in its Lease annotation', () => {
  test('round trip, and a malformed table is none (every member falls back alike)', () => {
    const table = balancedCuts(tenants(1000), membersOf(3));
    expect(decodeTable(`7:${encodeCuts(table)}`)).toEqual(table);
    expect(decodeTable(undefined)).toBeUndefined();
    expect(decodeTable(`1:${encodeCuts(table.slice(1))}`)).toBeUndefined(); // 126 cuts
    expect(decodeTable(`1:${encodeCuts([...table].reverse())}`)).toBeUndefined(); // decreasing
    expect(decodeTable(`1:${encodeCuts(table).replace(/^[0-9a-f]+/, 'xyz')}`)).toBeUndefined();
  });
});

describe('buckets under a table', () => {
  test('a hash lies in the bounds of its bucket, with and without a table; without one the bucket is the top bits', () => {
    const table = balancedCuts(tenants(500), membersOf(4));
    for (let i = 0; i < 2000; i++) {
      const h = randomHash();
      for (const t of [table, undefined]) {
        const [start, end] = bucketBounds(bucketOfHash(h, t), t);
        expect(start <= h && h < end).toBe(true);
      }
      expect(bucketOfHash(h)).toBe(Number(h >> 57n));
    }
    // the extremes: hash 0 in bucket 0 (empty buckets before it have [0, 0)), the largest hash in the last bucket
    expect(bucketBounds(bucketOfHash(0n, table), table)[0]).toBe(0n);
    expect(bucketOfHash(2n ** 64n - 1n, table)).toBe(SHARD_BUCKETS - 1);
  });

  test("bucketOwner of a hash key: its bucket's owner under the view's table; without one as the bucket key's", () => {
    const members = membersOf(3);
    const view = `2:${encodeCuts(balancedCuts(tenants(300), members))}`;
    const table = decodeTable(view)!;
    for (const ns of tenants(300)) {
      expect(bucketOwner(hashKey(ns), members, view)).toBe(
        bucketOwner(bucketKey(bucketOfHash(fnv1a64(ns), table)), members),
      );
      expect(bucketOwner(hashKey(ns), members)).toBe(bucketOwner(bucketKey(bucketOf(ns)), members));
    }
  });

  test('the selector of a set of buckets is the same given as buckets or as their ranges; overlapping ranges merge', () => {
    const buckets = [0, 1, 2, 7, 8, 100, 127];
    const ranges = buckets.map((b) => bucketBounds(b));
    expect(shardRangeSelector('object.metadata.namespace', ranges)).toBe(
      shardRangeSelector('object.metadata.namespace', buckets),
    );
    expect(
      shardRangeSelector('f', [
        [0n, 10n],
        [5n, 20n],
        [20n, 30n],
        [40n, 40n],
      ]),
    ).toBe("shardRange(f, '0x0000000000000000', '0x000000000000001e')");
    expect(shardRangeSelector('f', [127])).toBe("shardRange(f, '0xfe00000000000000', '0x10000000000000000')");
  });
});
