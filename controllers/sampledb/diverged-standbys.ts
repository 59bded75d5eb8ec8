/**
 * A standby that diverged from the primary: it replayed WAL of its timeline past the point where the primary's
 * timeline forked off it, so it holds WAL the primary never had and can never follow it (PostgreSQL's startup process
 * logs "new timeline N forked off current database system timeline M before current recovery point" and waits). An
 * asynchronous failover makes one whenever a standby that did not answer in time was ahead of the one promoted; left
 * alone it serves that stale history to `<db>-ro` readers forever and is no standby for the next failover.
 *
 * The cure is Patroni's and CloudNativePG's: rewind it (`pg_rewind`) onto the primary. The operator never execs into
 * pods, so it restarts the standby (replication.ts: its sessions ended first, so that PostgreSQL stops cleanly) and the
 * instance script rewinds a cleanly stopped standby before it starts ({@link REWIND_STANDBY_FUNCTION} in
 * instance-script.ts). `spec.anomalies.rewindDivergedStandbys: false` leaves it diverged, out of `<db>-ro` (the
 * condition StandbyDiverged says so).
 *
 * Pure: decided from what the primary and the standby report (instances.ts), the same answer at every poll until the
 * standby rejoined.
 */
import { formatLsn, PgState } from './instances';
import { Database } from './types';

/** Why a standby cannot follow the primary. */
export interface Divergence {
  /** The standby's timeline. */
  readonly timeline: number;
  /** Where that timeline ended in the primary's history. */
  readonly forkLsn: bigint;
  /** How far the standby replayed it. */
  readonly replayLsn: bigint;
}

/**
 * The divergence of `standby` from `primary`, or undefined when it can follow: both answered, the standby is on an
 * older timeline than the primary, the primary's history says where that timeline ended, and the standby replayed
 * past it. A standby still behind that point (one catching up after a restart) is not diverged: it follows the fork.
 */
export function divergence(primary: PgState | undefined, standby: PgState | undefined): Divergence | undefined {
  if (!primary || primary.recovery || !standby?.recovery) return undefined;
  const timeline = standby.timeline;
  if (timeline === undefined || primary.timeline === undefined || timeline >= primary.timeline) return undefined;
  const fork = primary.timelineHistory?.find((s) => s.timeline === timeline);
  const replayLsn = standby.replayLsn;
  if (!fork || replayLsn === undefined || replayLsn <= fork.lsn) return undefined;
  return { timeline, forkLsn: fork.lsn, replayLsn };
}

/** `spec.anomalies.rewindDivergedStandbys` (default on). */
export function rewindDivergedStandbys(db: Database): boolean {
  return db.spec.anomalies?.rewindDivergedStandbys !== false;
}

/** "is on timeline 1 and replayed it to 0/3000100, past its end at 0/3000060": how events name a divergence. */
export function describeDivergence(d: Divergence): string {
  return `is on timeline ${d.timeline} and replayed it to ${formatLsn(d.replayLsn)}, past its end at ${formatLsn(d.forkLsn)}`;
}
