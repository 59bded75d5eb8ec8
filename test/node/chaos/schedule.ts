/**
 * The seeded, randomized fault schedule: every fault kind `perKind` times, in an order (and with
 * per-fault parameters) drawn from a seeded generator, so a failing run is replayed with its seed.
 */
import { seededRandom } from '../../support/seeded-random';

/** The faults the suite injects (see faults.ts for what each does). */
export const FAULT_KINDS = [
  'primary-delete',
  'postmaster-kill',
  'standby-delete',
  'operator-kill-mid-failover',
  'partition',
  'apiserver-restart-mid-failover',
  'node-agent-restart',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** One scheduled fault: its kind and a random number for its own parameters (a delay, a hold time). */
export interface ScheduledFault {
  readonly index: number;
  readonly kind: FaultKind;
  /** In [0, 1): e.g. how long into a failover the operator is killed. */
  readonly jitter: number;
}

/**
 * `perKind` rounds, each with every one of `kinds` once in an order shuffled (Fisher–Yates) by the
 * seeded generator: a run stopped after any whole round has the same number of faults of each kind.
 */
export function faultSchedule(
  seed: number,
  perKind: number,
  kinds: readonly FaultKind[] = FAULT_KINDS,
): ScheduledFault[] {
  const rnd = seededRandom(seed);
  const list: FaultKind[] = [];
  for (let round = 0; round < perKind; round++) {
    const r = [...kinds];
    for (let i = r.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [r[i], r[j]] = [r[j], r[i]];
    }
    list.push(...r);
  }
  return list.map((kind, index) => ({ index, kind, jitter: rnd() }));
}
