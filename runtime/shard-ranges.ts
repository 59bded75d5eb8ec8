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
 *   the shares follow the names, not the count of buckets (docs/sharding.md; `labels` hashes the name itself).
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

/** The ring's shard key of a bucket (what rendezvous hashing assigns to a member). */
export function bucketKey(bucket: number): string {
  return `fnv64-bucket-${bucket}`;
}

const BUCKET_KEYS = Array.from({ length: SHARD_BUCKETS }, (_, b) => bucketKey(b));
/** The bucket tables of the last few views (a view is a sorted member list; the ring asks per object). */
const tables = new Map<string, Map<string, string>>();

/**
 * The ring's owner of a shard key with assignment `server` (sharding.ts `ShardOwner`): a bucket goes to a member
 * by rendezvous hashing with bounded loads over all {@link SHARD_BUCKETS} buckets (`boundedRendezvous`), so each
 * member holds at most ceil(128 / members) of them; any other key by plain rendezvous hashing.
 */
export function bucketOwner(shardKey: string, members: readonly string[]): string | undefined {
  const view = members.join('\n');
  let table = tables.get(view);
  if (!table) {
    table = boundedRendezvous(BUCKET_KEYS, members);
    if (tables.size >= 16) tables.delete(tables.keys().next().value!);
    tables.set(view, table);
  }
  return table.get(shardKey) ?? rendezvousOwner(shardKey, members);
}

/** The field the server hashes for a shard key: the object's UID or its namespace. */
export function shardField(key: 'uid' | 'namespace'): string {
  return key === 'uid' ? 'object.metadata.uid' : 'object.metadata.namespace';
}

function bound(bucket: number): string {
  // eslint-disable-next-line no-bitwise -- the first hash of a bucket
  return `'0x${(BigInt(bucket) << BUCKET_SHIFT).toString(16).padStart(16, '0')}'`;
}

/**
 * The shard selector of a set of buckets: one `shardRange` per run of adjacent buckets, joined by `||` (the
 * last bound may be `0x10000000000000000`, as the apiserver accepts). No bucket: a range that holds nothing.
 */
export function shardRangeSelector(field: string, buckets: Iterable<number>): string {
  const sorted = [...new Set(buckets)].sort((a, b) => a - b);
  if (sorted.length === 0) return `shardRange(${field}, ${bound(0)}, ${bound(0)})`;
  const ranges: string[] = [];
  let start = sorted[0];
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1] + 1) continue;
    const end = sorted[i - 1] + 1;
    ranges.push(
      `shardRange(${field}, ${bound(start)}, ${end === SHARD_BUCKETS ? "'0x10000000000000000'" : bound(end)})`,
    );
    if (i < sorted.length) start = sorted[i];
  }
  return ranges.join(' || ');
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
