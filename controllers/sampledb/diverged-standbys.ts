/**
 * A standby that diverged from the primary: it replayed WAL past the point where its history and the primary's part, so
 * it holds WAL the primary never had and can never follow it. An asynchronous failover makes one whenever a standby
 * that did not answer in time was ahead of the one promoted: it replayed its timeline past where the primary's timeline
 * forked off it (PostgreSQL's startup process logs "new timeline N forked off current database system timeline M
 * before current recovery point" and waits). Two promotions that took one timeline ID make another: a standby
 * promoted before it learned of the last promotion takes that promotion's ID again, forked off elsewhere (PostgreSQL
 * picks the ID after the newest history file it has). A server of one such timeline that runs as a standby of the other is on the
 * primary's timeline ID, streams from it and acknowledges its commits, yet cannot replay them; the two histories of
 * that ID (`pg_wal/<ID>.history`) tell it, not the ID.
 *
 * The cure is Patroni's and CloudNativePG's: rewind it (`pg_rewind`) onto the primary. The operator never execs into
 * pods, so it restarts the standby (replication.ts: its sessions ended first, so that PostgreSQL stops cleanly) and the
 * instance script rewinds a cleanly stopped standby before it starts ({@link REWIND_STANDBY_FUNCTION} in
 * instance-script.ts), or re-clones it where the primary took its timeline ID with another history (pg_rewind compares
 * the IDs alone). `spec.anomalies.rewindDivergedStandbys: false` leaves it diverged, out of `<db>-ro` (the condition
 * StandbyDiverged says so).
 *
 * Pure: decided from what the primary and the standby report (instances.ts), the same answer at every poll until the
 * standby rejoined.
 */
import { formatLsn, PgState, TimelineSwitch } from './instances';
import { Database } from './types';

/** Why a standby cannot follow the primary. */
export interface Divergence {
  /** The standby's timeline. */
  readonly timeline: number;
  /** The primary's timeline. */
  readonly primaryTimeline: number;
  /**
   * The end of the WAL both histories hold: where the standby's timeline ended in the primary's history, or where
   * their histories part.
   */
  readonly forkLsn: bigint;
  /** How far the standby replayed. */
  readonly replayLsn: bigint;
  /**
   * The standby's history is not a part of the primary's: another timeline of the same ID (two promotions took it), or
   * one that forked off elsewhere. False: the standby's own timeline ended in the primary's history.
   */
  readonly otherHistory: boolean;
}

/** A server's timelines from the first to its own, each with where it ended (its own has not). */
type Lineage = readonly { readonly timeline: number; readonly lsn?: bigint }[];

const lineage = (history: readonly TimelineSwitch[], timeline: number): Lineage => [...history, { timeline }];

/**
 * Where two servers' histories part: the end of the WAL both hold, or undefined where neither left the other's (one
 * server's lineage is the other's). Both start on timeline 1 (a lineage that does not is not judged).
 */
function parting(primary: Lineage, standby: Lineage): bigint | undefined {
  for (let i = 0; i < primary.length && i < standby.length; i++) {
    const p = primary[i];
    const s = standby[i];
    if (p.timeline !== s.timeline) return i === 0 ? undefined : primary[i - 1].lsn;
    if (p.lsn === s.lsn) continue;
    if (p.lsn === undefined) return s.lsn;
    if (s.lsn === undefined) return p.lsn;
    return p.lsn < s.lsn ? p.lsn : s.lsn;
  }
  return undefined;
}

/**
 * The divergence of `standby` from `primary`, or undefined when it can follow: both answered, both histories are known,
 * and the standby replayed past where they part. A standby still behind that point (one catching up after a restart)
 * is not diverged: it follows the fork. A standby whose own history file could not be read is judged by the primary's
 * alone: diverged only on an older timeline replayed past its end there.
 */
export function divergence(primary: PgState | undefined, standby: PgState | undefined): Divergence | undefined {
  if (!primary || primary.recovery || !standby?.recovery) return undefined;
  const timeline = standby.timeline;
  const primaryTimeline = primary.timeline;
  const replayLsn = standby.replayLsn;
  const primaryHistory = primary.timelineHistory;
  if (timeline === undefined || primaryTimeline === undefined || replayLsn === undefined || !primaryHistory) {
    return undefined;
  }
  // A standby on a newer timeline than the primary's is not judged: its timeline is read partly from its WAL files'
  // names, which a leftover file can raise. And a primary's history must reach its timeline (a missing file reads as
  // none): else it says nothing.
  if (timeline > primaryTimeline || (primaryTimeline > 1 && primaryHistory.length === 0)) return undefined;
  const ended = timeline < primaryTimeline ? primaryHistory.find((s) => s.timeline === timeline) : undefined;
  const forkLsn = standby.timelineHistory
    ? parting(lineage(primaryHistory, primaryTimeline), lineage(standby.timelineHistory, timeline))
    : ended?.lsn;
  if (forkLsn === undefined || replayLsn <= forkLsn) return undefined;
  return { timeline, primaryTimeline, forkLsn, replayLsn, otherHistory: ended?.lsn !== forkLsn };
}

/** `spec.anomalies.rewindDivergedStandbys` (default on). */
export function rewindDivergedStandbys(db: Database): boolean {
  return db.spec.anomalies?.rewindDivergedStandbys !== false;
}

/**
 * How events name a divergence: "is on timeline 1 and replayed it to 0/3000100, past its end at 0/3000060" (an older
 * timeline), or "is on another timeline 2 than the primary's (their histories part at 0/3000060) and replayed it to
 * 0/3000100" (another history).
 */
export function describeDivergence(d: Divergence): string {
  if (!d.otherHistory) {
    return `is on timeline ${d.timeline} and replayed it to ${formatLsn(d.replayLsn)}, past its end at ${formatLsn(d.forkLsn)}`;
  }
  const which =
    d.timeline === d.primaryTimeline ? `another timeline ${d.timeline} than the primary's` : `timeline ${d.timeline}`;
  return `is on ${which} (their histories part at ${formatLsn(d.forkLsn)}) and replayed it to ${formatLsn(d.replayLsn)}`;
}
