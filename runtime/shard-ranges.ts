/**
 * The apiserver's own shard selector (KEP-5866, Kubernetes 1.36 alpha, feature gate `ShardedListAndWatch`):
 * `?shardSelector=shardRange(object.metadata.uid, '0x<16 hex>', '0x<16 hex>') || …` makes a list or watch carry
 * only the objects whose field hashes (64-bit FNV-1a) into one of the ranges, so a member receives its share
 * without a label on the objects (no write per object, no patch permission).
 *
 * Expected flow (the manager wires it with `assignment: 'server'`):
 * 1. At start, {@link probeShardSelector} lists one Lease with a selector and checks that the server echoed it in
 *    `metadata.shardInfo.selector`: a server without the gate (or older than 1.36) ignores the parameter and sends
 *    everything, with no echo. Not served: the members filter the whole stream themselves (`assignment: 'hash'`).
 * 2. The hash space is cut into {@link SHARD_BUCKETS} equal buckets (the top bits of the hash); the ring assigns
 *    buckets to members by rendezvous hashing of {@link bucketKey} with bounded loads ({@link bucketOwner}: no
 *    member holds more than ceil(128 / members) buckets), so the shares are even and a ring change moves mostly
 *    the buckets of the member that came or went.
 * 3. A member's informers ask for {@link shardRangeSelector} of the buckets it holds (adjacent buckets merged into
 *    one range), re-read at each list and watch: a ring change re-lists with the new ranges.
 *
 * Guarantees:
 * - {@link fnv1a64} is the apiserver's hash: checked against kube-apiserver v1.36.3 object by object
 *   (test/runtime/shard-selector.integration.test.ts). The member still checks every object it receives against
 *   the ring (the server's ranges only pre-filter), so a hash or range mismatch can cost a missed object, never a
 *   second owner.
 *
 * Caveats:
 * - The server hashes the object's own field: with `key: 'uid'` an owned object (a Foo's Deployment) hashes by its
 *   own UID, not its owner's, so only the kinds a controller reconciles (its `for` kind) are selected by the server
 *   and their objects are assigned by their own UID; the owned kinds are filtered by the member. With
 *   `key: 'namespace'` every sharded kind is selected by the server.
 * - Metadata-only lists do not echo `shardInfo` (v1.36.3), though they are filtered: probe with a full list.
 * - FNV-1a's top bits hardly depend on the last two bytes hashed, and a bucket is the top bits: namespaces whose
 *   names differ only at the end (`foo-0` … `foo-999`: 11 of 128 buckets) share a bucket, so with `key: 'namespace'`
 *   the shares follow the names, not the count of buckets (docs/sharding.md), unless the ring deals buckets that
 *   follow the namespaces (`ranges: 'namespaces'`, below).
 *
 * Ranges that follow the namespaces (`ranges: 'namespaces'`, key namespace): the buckets are not equal slices of the
 * hash space but a {@link RangeTable} of 127 cuts, each bucket holding an equal count of the namespaces the cluster
 * has ({@link balancedCuts}). The ring's first member writes the table into its Lease, every member copies the table
 * of the view it acknowledges into its own, and the table is part of the view (sharding.ts): a new table moves
 * objects under the same barrier as a member joining, so it never gives an object to two members at once.
 */
import { KubeClient } from './client';
import { boundedRendezvous, rendezvousOwner } from './sharding';

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' } as const;

/** How many equal ranges the 64-bit hash space is cut into (the unit the ring assigns). */
export const SHARD_BUCKETS = 128;

const MASK64 = (BigInt(1) << BigInt(64)) - BigInt(1);
const FNV_OFFSET = BigInt('0xcbf29ce484222325');
const FNV_PRIME = BigInt('0x100000001b3');
const BUCKET_SHIFT = BigInt(64 - Math.log2(SHARD_BUCKETS));

/** 64-bit FNV-1a of the UTF-8 bytes of `s`: the hash `shardRange()` compares with its bounds. */
export function fnv1a64(s: string): bigint {
  let h = FNV_OFFSET;
  for (const byte of Buffer.from(s, 'utf8')) {
    // eslint-disable-next-line no-bitwise -- a hash is bit arithmetic
    h = ((h ^ BigInt(byte)) * FNV_PRIME) & MASK64;
  }
  return h;
}

/** The bucket (0 … SHARD_BUCKETS-1) of a field value. */
export function bucketOf(value: string): number {
  // eslint-disable-next-line no-bitwise -- the top bits of the hash
  return Number(fnv1a64(value) >> BUCKET_SHIFT);
}

/**
 * Where the buckets start: {@link SHARD_BUCKETS} - 1 cuts, non-decreasing (bucket b holds the hashes from cut b-1,
 * or 0, up to but not including cut b, or 2^64; equal cuts make an empty bucket). Undefined: equal slices.
 */
export type RangeTable = readonly bigint[];

/** The ring's shard key of a field value with assignment `server`: its hash (the bucket follows the view's table). */
export function hashKey(value: string): string {
  return `fnv64:${fnv1a64(value).toString(16).padStart(16, '0')}`;
}

/** The bucket of a hash under a table: how many cuts are at or below it. */
export function bucketOfHash(hash: bigint, table?: RangeTable): number {
  // eslint-disable-next-line no-bitwise -- the top bits of the hash
  if (!table) return Number(hash >> BUCKET_SHIFT);
  let low = 0;
  let high = table.length;
  while (low < high) {
    const mid = (low + high) >>> 1; // eslint-disable-line no-bitwise -- the midpoint of two indexes
    if (table[mid] <= hash) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The hashes a bucket holds, [start, end), under a table (end 2^64 for the last). */
export function bucketBounds(bucket: number, table?: RangeTable): readonly [bigint, bigint] {
  // eslint-disable-next-line no-bitwise -- the first hash of a bucket
  if (!table) return [BigInt(bucket) << BUCKET_SHIFT, BigInt(bucket + 1) << BUCKET_SHIFT];
  return [bucket === 0 ? 0n : table[bucket - 1], bucket === table.length ? MASK64 + 1n : table[bucket]];
}

/**
 * Cuts that give every member an equal count of the given names' hashes (within one): the hashes sorted, each
 * member's buckets, taken in order, share its quota evenly (with 4 members and 1,000 names, about 8 a bucket; with
 * fewer names than buckets, some buckets hold none). Without members, every bucket an equal count. A name created
 * later falls into the bucket whose range holds its hash.
 */
export function balancedCuts(names: Iterable<string>, members: readonly string[] = []): RangeTable {
  const hashes = [...new Set([...names].map(fnv1a64))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const owners = bucketTable(members);
  const ownerOf = (b: number) => owners.get(bucketKey(b)) ?? '';
  // each member's quota of names (the first n mod m members one more) and how many buckets it has left to fill
  const sorted = [...new Set(BUCKET_KEYS.map((_, b) => ownerOf(b)))].sort();
  const quota = new Map(
    sorted.map((m, i) => [m, Math.floor(hashes.length / sorted.length) + (i < hashes.length % sorted.length ? 1 : 0)]),
  );
  const left = new Map(sorted.map((m) => [m, BUCKET_KEYS.filter((_, b) => ownerOf(b) === m).length]));
  const cuts: bigint[] = [];
  let taken = 0;
  for (let b = 0; b < SHARD_BUCKETS; b++) {
    if (b > 0) cuts.push(taken === 0 ? 0n : taken >= hashes.length ? MASK64 : hashes[taken]);
    const m = ownerOf(b);
    const share = Math.round(quota.get(m)! / left.get(m)!);
    quota.set(m, quota.get(m)! - share);
    left.set(m, left.get(m)! - 1);
    taken += share;
  }
  return cuts;
}

/** A table as the ring carries it in a Lease annotation: the cuts in hexadecimal, comma-separated. */
export function encodeCuts(table: RangeTable): string {
  return table.map((c) => c.toString(16)).join(',');
}

/**
 * A table back as cuts: a view's (`<generation>:<cuts>`, sharding.ts) or the cuts alone; undefined for none, or for
 * a malformed one (every member reads the same annotation, so every member falls back alike).
 */
export function decodeTable(view: string | undefined): RangeTable | undefined {
  const cuts = view?.slice(view.indexOf(':') + 1).split(',');
  if (!cuts || cuts.length !== SHARD_BUCKETS - 1 || !cuts.every((c) => /^[0-9a-f]{1,16}$/.test(c))) return undefined;
  const table = cuts.map((c) => BigInt(`0x${c}`));
  return table.every((c, i) => i === 0 || table[i - 1] <= c) ? table : undefined;
}

/** How many of the names each member gets under a table (the ring's first member decides on a new table by it). */
export function namesPerMember(names: Iterable<string>, members: readonly string[], table?: RangeTable): number[] {
  const owners = bucketTable(members);
  const counts = new Map(members.map((m) => [m, 0]));
  for (const name of names) {
    const owner = owners.get(bucketKey(bucketOfHash(fnv1a64(name), table)));
    if (owner !== undefined) counts.set(owner, counts.get(owner)! + 1);
  }
  return members.map((m) => counts.get(m)!);
}

/** The ring's shard key of a bucket (what rendezvous hashing assigns to a member). */
export function bucketKey(bucket: number): string {
  return `fnv64-bucket-${bucket}`;
}

const BUCKET_KEYS = Array.from({ length: SHARD_BUCKETS }, (_, b) => bucketKey(b));
/** The bucket tables of the last few views (a view is a sorted member list; the ring asks per object). */
const tables = new Map<string, Map<string, string>>();

/** Each bucket's member (by bucket key), dealt by rendezvous hashing with bounded loads; memoized per member list. */
function bucketTable(members: readonly string[]): Map<string, string> {
  const view = members.join('\n');
  let table = tables.get(view);
  if (!table) {
    table = boundedRendezvous(BUCKET_KEYS, members);
    if (tables.size >= 16) tables.delete(tables.keys().next().value!);
    tables.set(view, table);
  }
  return table;
}

/** The cuts of the last few views' tables (the ring asks per object). */
const decoded = new Map<string, RangeTable | undefined>();

function tableOf(view: string | undefined): RangeTable | undefined {
  if (view === undefined) return undefined;
  if (!decoded.has(view)) {
    if (decoded.size >= 16) decoded.delete(decoded.keys().next().value!);
    decoded.set(view, decodeTable(view));
  }
  return decoded.get(view);
}

/**
 * The ring's owner of a shard key with assignment `server` (sharding.ts `ShardOwner`): a bucket goes to a member
 * by rendezvous hashing with bounded loads over all {@link SHARD_BUCKETS} buckets (`boundedRendezvous`), so each
 * member holds at most ceil(128 / members) of them. A {@link hashKey} falls into its bucket under the view's
 * table (equal slices without one), a {@link bucketKey} is that bucket; any other key goes by plain rendezvous
 * hashing.
 */
export function bucketOwner(shardKey: string, members: readonly string[], table?: string): string | undefined {
  const key = shardKey.startsWith('fnv64:')
    ? bucketKey(bucketOfHash(BigInt(`0x${shardKey.slice('fnv64:'.length)}`), tableOf(table)))
    : shardKey;
  return bucketTable(members).get(key) ?? rendezvousOwner(shardKey, members);
}

/** The field the server hashes for a shard key: the object's UID or its namespace. */
export function shardField(key: 'uid' | 'namespace'): string {
  return key === 'uid' ? 'object.metadata.uid' : 'object.metadata.namespace';
}

function bound(hash: bigint): string {
  return `'0x${hash.toString(16).padStart(16, '0')}'`;
}

/** The hash ranges of a set of buckets under a table: [start, end) each, empty buckets left out. */
export function bucketRanges(buckets: Iterable<number>, table?: RangeTable): Array<readonly [bigint, bigint]> {
  return [...new Set(buckets)].map((b) => bucketBounds(b, table)).filter(([start, end]) => start < end);
}

/**
 * The shard selector of a set of buckets (or of hash ranges, e.g. the buckets of two views with different tables):
 * one `shardRange` per run of adjacent or overlapping ranges, joined by `||` (the last bound may be
 * `0x10000000000000000`, as the apiserver accepts). Nothing: a range that holds nothing.
 */
export function shardRangeSelector(
  field: string,
  buckets: Iterable<number> | Iterable<readonly [bigint, bigint]>,
): string {
  const given = [...buckets];
  const ranges = (
    given.every((b) => typeof b === 'number')
      ? bucketRanges(given as number[])
      : (given as Array<readonly [bigint, bigint]>).filter(([start, end]) => start < end)
  ).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (ranges.length === 0) return `shardRange(${field}, ${bound(0n)}, ${bound(0n)})`;
  const merged: Array<[bigint, bigint]> = [];
  for (const [start, end] of ranges) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = end > last[1] ? end : last[1];
    else merged.push([start, end]);
  }
  return merged.map(([start, end]) => `shardRange(${field}, ${bound(start)}, ${bound(end)})`).join(' || ');
}

/**
 * Does the apiserver apply shard selectors? Lists the Leases of the ring's namespace (a member may list them), a
 * page of one, with a selector of the whole hash space, and checks that the server echoed it (the OpenAPI document
 * of v1.36.3 names the parameter even with the gate off: it does not tell).
 */
export async function probeShardSelector(client: KubeClient, namespace: string): Promise<boolean> {
  const selector = shardRangeSelector(shardField('uid'), [...Array(SHARD_BUCKETS).keys()]);
  const list = await client.list(LEASE, { namespace, limit: 1, shardSelector: selector });
  return list.shardSelector === selector;
}
