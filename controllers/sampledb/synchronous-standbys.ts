/**
 * Which standbys a failover must hear from before it promotes one, with `spec.synchronous: true`
 * (`status.synchronousStandbys`; CloudNativePG's failover quorum answers the same question).
 *
 * `synchronous_standby_names = 'ANY 1 (…)'` acknowledges a commit once any one of the standbys it names has flushed it,
 * so the last commits may be on one standby alone. Promoting the most advanced of the standbys that answer is safe only
 * when every standby that may hold such commits answers. The list holds:
 * - the standbys streaming from the primary when it last answered (PostgreSQL waits for no other);
 * - a standby that stopped streaming, until a standby that still streams has flushed past the primary's WAL position
 *   when the first was first seen gone (`leftAtLsn`): every commit the first acknowledged is below that position.
 *
 * The list is updated only from a primary that answers, so it survives the primary's failure. And the primary names
 * only the standbys of the list as persisted ({@link synchronousStandbyNamesOf}): a standby that began streaming after
 * the last look streams asynchronously, acknowledging nothing, until the list names it (with `ANY 1 (*)` it could
 * acknowledge commits before, and fail with the primary unlisted). A standby is configured so before it is promoted.
 */
import { formatLsn, parseLsn, PgState } from './instances';
import { SampleDBStatus } from './types';

/** One entry of `status.synchronousStandbys`. */
export type SynchronousStandby = NonNullable<SampleDBStatus['synchronousStandbys']>[number];

/**
 * The list after a look at the primary (`primary`, answering with `pg`): undefined when it waits for no standby
 * (`synchronous_standby_names` empty: nothing it acknowledges is on a standby alone). The primary itself leaves the
 * list (a standby promoted since it was written).
 */
export function nextSynchronousStandbys(
  previous: readonly SynchronousStandby[] | undefined,
  primary: string,
  pg: PgState,
): SynchronousStandby[] | undefined {
  if (!pg.synchronousStandbyNames) return undefined;
  const streaming = pg.streaming ?? [];
  const gone = (previous ?? [])
    .filter((s) => s.name !== primary && !streaming.includes(s.name))
    .map((s) => ({ name: s.name, leftAtLsn: s.leftAtLsn ?? formatLsn(pg.lsn) }))
    .filter((s) => {
      const left = parseLsn(s.leftAtLsn);
      return pg.streamingFlushLsn === undefined || left === undefined || pg.streamingFlushLsn < left;
    });
  const next = [...streaming.map((name) => ({ name })), ...gone].sort((a, b) => a.name.localeCompare(b.name));
  return next.length ? next : undefined;
}

/**
 * The standbys of the list that do not `answer` now, `primary` and pods the StatefulSet no longer keeps (`kept`:
 * its replicas; a pod it removed does not come back) left out.
 */
export function unansweredSynchronousStandbys(
  list: readonly SynchronousStandby[] | undefined,
  primary: string | undefined,
  kept: number,
  answers: (name: string) => boolean,
): string[] {
  return (list ?? [])
    .map((s) => s.name)
    .filter((name) => name !== primary && Number(/-(\d+)$/.exec(name)?.[1] ?? 0) < kept && !answers(name));
}

/** What `synchronous_standby_names` names while no standby is recorded: no pod's `application_name` (it has spaces). */
export const NO_RECORDED_STANDBY = 'no standby recorded yet';

/**
 * `synchronous_standby_names` of a primary that waits for a standby: `ANY 1` of the standbys of the list as it was
 * persisted (`recorded`: the status this reconcile started from; `primary` left out), so PostgreSQL waits only for a
 * standby a failover would wait for. With none recorded, a name no standby has: commits wait until a standby streams
 * and the operator has recorded it (one look later), as they wait while no standby streams.
 */
export function synchronousStandbyNamesOf(
  recorded: readonly SynchronousStandby[] | undefined,
  primary: string,
): string {
  const names = (recorded ?? []).map((s) => s.name).filter((n) => n !== primary);
  const quoted = (names.length ? names : [NO_RECORDED_STANDBY]).map((n) => `"${n.replace(/"/g, '""')}"`);
  return `ANY 1 (${quoted.join(', ')})`;
}
