/**
 * The fencing checker: rounds of probes that connect to every database pod directly (its IP, not a
 * Service) and try to commit a write. Two properties are checked on the rounds:
 *
 * - at most one instance acknowledges a write in any round ("never two writable primaries");
 * - no instance acknowledges a write on a timeline older than the newest timeline any instance was
 *   already seen writing on: a primary that was cut off or crashed must never accept a write once
 *   another has been promoted (promotion starts a new timeline).
 *
 * A probe that times out is not an acknowledgement (the client destroys the connection instead of
 * cancelling: a cancelled wait for a synchronous standby returns success with a warning).
 * Pure functions (fencing.test.ts); the probing itself is in probe.ts.
 */

/** One probe of one pod. */
export interface Probe {
  readonly pod: string;
  /** The commit was acknowledged. */
  readonly acked: boolean;
  /** `pg_is_in_recovery()`, when the server answered. */
  readonly recovery?: boolean;
  /** The timeline the write went to (primaries only). */
  readonly timeline?: number;
}

/** One round: every pod probed at about the same time (started at `at`, ms since epoch). */
export interface ProbeRound {
  readonly at: number;
  readonly probes: readonly Probe[];
}

export interface FencingViolation {
  readonly at: number;
  readonly kind: 'two-writable' | 'stale-timeline-write';
  readonly detail: string;
}

/** See module docs. Rounds are checked in the order of `at`. */
export function fencingViolations(rounds: readonly ProbeRound[]): FencingViolation[] {
  const out: FencingViolation[] = [];
  let newest = 0;
  let newestPod = '';
  for (const r of [...rounds].sort((a, b) => a.at - b.at)) {
    const acked = r.probes.filter((p) => p.acked);
    if (acked.length > 1) {
      out.push({
        at: r.at,
        kind: 'two-writable',
        detail: `${acked.map((p) => `${p.pod} (timeline ${p.timeline ?? '?'})`).join(' and ')} acknowledged writes in the same round`,
      });
    }
    for (const p of acked) {
      if (p.timeline !== undefined && p.timeline < newest) {
        out.push({
          at: r.at,
          kind: 'stale-timeline-write',
          detail: `${p.pod} acknowledged a write on timeline ${p.timeline} after ${newestPod} wrote on timeline ${newest}`,
        });
      }
    }
    for (const p of acked) {
      if (p.timeline !== undefined && p.timeline > newest) {
        newest = p.timeline;
        newestPod = p.pod;
      }
    }
  }
  return out;
}

/** Pods that acknowledged a write in the round (the writable instances). */
export function writable(round: ProbeRound): string[] {
  return round.probes.filter((p) => p.acked).map((p) => p.pod);
}

/**
 * Rounds in which more than one instance answered as a primary (not in recovery), whether or not it
 * could commit: with `synchronous: true` a second primary without a standby cannot acknowledge a
 * write, but it is still a primary that was not fenced. Reported beside the violations.
 */
export function secondPrimaryRounds(rounds: readonly ProbeRound[]): { at: number; pods: string[] }[] {
  return rounds
    .map((r) => ({ at: r.at, pods: r.probes.filter((p) => p.recovery === false).map((p) => p.pod) }))
    .filter((r) => r.pods.length > 1);
}
