/**
 * Storage auto-grow (`spec.storageAutoGrow: { trigger, step, limit }`), after Crunchy PGO's AutoGrowVolumes: when the
 * database uses `trigger` percent of its data volume claim, every data claim grows by `step` percent, up to `limit`.
 *
 * Use is what PostgreSQL reports (the sizes of its databases and of its WAL directory, the largest over the
 * instances), not the filesystem's: a volume's filesystem can be larger than its claim (it is on the node's
 * provisioner, which enforces no quota), and the claim is what was paid for. Capacity is the smallest data claim's
 * `status.capacity`. A growth is asked for by raising each claim's request; the next one waits until every claim's
 * capacity shows the last one (the resize is done), so one use above the trigger grows the volumes once.
 * A claim created later from the StatefulSet's template (a scale-up) is raised to the others' size.
 */
import { quantityBytes } from './tuning';
import { Database } from './types';

/** Defaults of `spec.storageAutoGrow` (Crunchy PGO's: grow at 75 %, by 50 %). */
export const DEFAULT_TRIGGER_PERCENT = 75;
export const DEFAULT_STEP_PERCENT = 50;

/** One data claim as the plan sees it. */
export interface DataClaim {
  readonly name: string;
  /** `spec.resources.requests.storage`, bytes. */
  readonly requested: number;
  /** `status.capacity.storage`, bytes (0 before it is bound). */
  readonly capacity: number;
}

/** What to do with the data claims. */
export interface GrowthPlan {
  /** Smallest capacity over the claims, bytes. */
  readonly capacity: number;
  /** Whole percent of `capacity` in use. */
  readonly usedPercent: number;
  /** Claims to raise, and the request to give them. */
  readonly grow: readonly { readonly name: string; readonly to: string }[];
  /** At or above the trigger with the claims at the limit. */
  readonly limitReached: boolean;
  /** A requested growth not yet visible in every claim's capacity. */
  readonly resizing: boolean;
}

/** `bytes` as a quantity in whole Mi, rounded up. */
export function toMi(bytes: number): string {
  return `${Math.ceil(bytes / 2 ** 20)}Mi`;
}

/** See module docs. `used` is the database's use in bytes. */
export function planGrowth(db: Database, claims: readonly DataClaim[], used: number): GrowthPlan | undefined {
  const spec = db.spec.storageAutoGrow;
  const bound = claims.filter((c) => c.capacity > 0);
  if (!spec || !bound.length) return undefined;
  const limit = quantityBytes(spec.limit) ?? 0;
  const capacity = Math.min(...bound.map((c) => c.capacity));
  const usedPercent = Math.floor((used * 100) / capacity);
  const largestRequest = Math.max(...claims.map((c) => c.requested));
  const resizing = claims.some((c) => c.capacity > 0 && c.capacity < c.requested);
  const over = usedPercent >= (spec.trigger ?? DEFAULT_TRIGGER_PERCENT);
  let target = largestRequest;
  if (over && !resizing && capacity < limit) {
    target = Math.max(
      largestRequest,
      Math.min(limit, Math.ceil(capacity * (1 + (spec.step ?? DEFAULT_STEP_PERCENT) / 100))),
    );
  }
  const to = toMi(target);
  const grow = claims.filter((c) => c.requested < (quantityBytes(to) ?? target)).map((c) => ({ name: c.name, to }));
  return { capacity, usedPercent, grow, limitReached: over && capacity >= limit, resizing };
}
