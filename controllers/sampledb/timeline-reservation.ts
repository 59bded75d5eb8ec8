/**
 * Timeline IDs a promotion may take: never one another instance of the database took.
 *
 * PostgreSQL gives a promoted standby the ID after the newest timeline history file it has (`findNewestTimeLine`); a
 * standby that never learned of the last promotion (its primary was fenced before the new one's WAL reached it) takes
 * that promotion's ID again. pg_rewind compares IDs alone: a former primary of the first promotion, rejoining the second,
 * hears "no rewind required" and runs as a standby holding WAL the primary never had. When both promotions forked off
 * at the same position (a switchover: the old primary stopped cleanly and every standby received all its WAL), even
 * their history files are byte for byte the same, so no check after the fact tells them apart (the instance script's
 * `timeline_taken_twice` compares them). Seen on the real node (landing CI of 366977f): a switchover made e2e-db-0 the
 * primary on timeline 4; its pod was deleted two seconds later; e2e-db-1, still on timeline 3, was promoted to timeline
 * 4 as well; e2e-db-0 rejoined without a rewind, and promoted in its turn PostgreSQL panicked ("unexpected pageaddr")
 * and the database had no primary for six minutes.
 *
 * So IDs are handed out by the operator, as CloudNativePG's WAL archive does for its instances (a promoted standby reads
 * every history file there): `status.timeline` holds the newest ID seen on any instance or reserved, and is raised
 * (persisted) before each `pg_promote()`; the target first gets a placeholder history file for every ID up to the one
 * below the reservation that it has no file of, so PostgreSQL, which walks up ID by ID from the timeline it recovers
 * along to the first ID without a file, gives it at least the reserved ID. A placeholder holds a comment alone, which
 * PostgreSQL reads as a timeline without parents. Gaps (a reservation whose promotion never happened) are harmless. The
 * placeholders stay on the promoted primary (a standby streaming from it asks it for the history of every ID between
 * its own timeline and the primary's); a target whose promotion never happened drops those above its newest real
 * history file when it starts as a standby (instance-script.ts `drop_timeline_placeholders`): kept, the newest would be
 * taken for the history of the timeline to recover along, and the standby could not follow a primary on that timeline.
 */

/** The newest timeline ID known: the one recorded in the status, those recorded per instance, those observed now. */
export function newestTimeline(
  recorded: number | undefined,
  instances: readonly { readonly timeline?: number }[] | undefined,
  observed: readonly (number | undefined)[],
): number {
  return Math.max(1, recorded ?? 1, ...(instances ?? []).map((i) => i.timeline ?? 1), ...observed.map((t) => t ?? 1));
}

/** `pg_wal/<ID>.history`, relative to the data directory. */
export function historyFile(timeline: number): string {
  return `pg_wal/${timeline.toString(16).toUpperCase().padStart(8, '0')}.history`;
}

/**
 * What a placeholder history file holds: one comment line (PostgreSQL skips comments when it reads the file). A shell
 * variable's name (`'$id'`) gives the line the instance script compares files with.
 */
export function placeholderHistory(timeline: number | string): string {
  return `# timeline ${timeline} was taken by another instance of this database; the SampleDB operator wrote this file so that a promotion here takes a higher ID`;
}
