// The timeline of one takeover in `npm run chaos:sharded` (bench/sharded-chaos.ts), read from the apiserver's audit
// log (every write of the members, with the body of their label patches and creates), the bench's own mirror of the
// ring's Leases and the members' scraped work queue depths: when the departed member's Lease went, when the survivors
// had acknowledged the new view (the barrier), when the objects labelled with the departed member were relabelled
// (first, last) and how many other label writes each member made meanwhile, when its objects were first written by
// a reconcile of their new owner, and how deep the new owners' work queues were. It says where a takeover's time goes.

/** A write of a member as the audit log has it. */
export interface AuditedWrite {
  readonly user: string;
  /** `<resource>/<name>` (foos, deployments, leases). */
  readonly object: string;
  readonly verb: string;
  readonly at: number;
  readonly code: number;
  /** A shard label write (runtime shard-labels.ts: assignment or handover), not a reconcile's. */
  readonly label: boolean;
  /** The shard label the request sets: a label write's target, a create's label. */
  readonly labelTo?: string;
}

/** The ring's Leases as the bench's mirror saw them change. */
export interface LeaseSample {
  readonly at: number;
  readonly lease: string;
  readonly view: string | undefined;
  readonly deleted: boolean;
}

/** A member's `workqueue_depth` of the Foo controller, scraped. */
export interface DepthSample {
  readonly at: number;
  readonly user: string;
  readonly depth: number;
}

export interface FaultAt {
  readonly kind: string;
  readonly member: string;
  readonly at: number;
}

const round = (x: number) => Math.round(x * 100) / 100;
const seconds = (ms: number | undefined) => (ms === undefined ? undefined : round(ms / 1000));

/** The Lease each member user wrote (its own: a member writes only its Lease). */
export function leaseOfUser(writes: readonly AuditedWrite[]): Map<string, string> {
  const leases = new Map<string, string>();
  for (const w of writes) if (w.object.startsWith('leases/')) leases.set(w.user, w.object.slice('leases/'.length));
  return leases;
}

/** The shard label of every Foo and Deployment at `at`, replayed from creates and label writes. */
export function labelsAt(writes: readonly AuditedWrite[], at: number): Map<string, string> {
  const labels = new Map<string, string>();
  for (const w of writes) {
    if (w.at >= at) break;
    if (w.object.startsWith('leases/') || w.labelTo === undefined) continue;
    if (w.label || w.verb === 'create') labels.set(w.object, w.labelTo);
  }
  return labels;
}

/**
 * The timeline of the takeover after `fault` (seconds after it). `orphans`: the objects the driver touched right
 * after the fault (the member's reconcile writes of the 10 s before it), whose first reconcile write by another
 * member is the takeover. `writes` sorted by time.
 */
export function takeoverTimeline(
  fault: FaultAt,
  orphans: ReadonlySet<string>,
  writes: readonly AuditedWrite[],
  leases: readonly LeaseSample[],
  depths: readonly DepthSample[],
  leaseDurationMs: number,
) {
  const lease = leaseOfUser(writes).get(fault.member);
  const after = (t: number | undefined) => (t === undefined ? undefined : t - fault.at);
  // The Lease gone: deleted (a clean stop), or its last change seen plus the Lease duration (kill, partition).
  const own = leases.filter((s) => s.lease === lease);
  const deleted = own.find((s) => s.deleted && s.at >= fault.at - 1000);
  const lastSeen = [...own].reverse().find((s) => !s.deleted && s.at <= fault.at + leaseDurationMs);
  const leaseGone = deleted?.at ?? (lastSeen ? lastSeen.at + leaseDurationMs : undefined);
  // The barrier: the first moment after the fault when every other live Lease (one that changed within the Lease
  // duration) acknowledges one view that none of them acknowledged at the fault.
  const current = new Map<string, { view: string | undefined; at: number }>();
  const views = (at: number) =>
    new Set([...current].filter(([l, c]) => l !== lease && at - c.at < leaseDurationMs).map(([, c]) => c.view));
  let before: Set<string | undefined> | undefined;
  let barrier: number | undefined;
  for (const s of leases) {
    if (before === undefined && s.at >= fault.at) before = views(s.at);
    if (s.deleted) current.delete(s.lease);
    else current.set(s.lease, { view: s.view, at: s.at });
    if (before === undefined || barrier !== undefined) continue;
    const now = views(s.at);
    const [view] = now;
    if (now.size === 1 && view !== undefined && !before.has(view)) barrier = s.at;
  }
  // The member's share at the fault and when each object of it got another label.
  const share = new Set([...labelsAt(writes, fault.at)].filter(([, l]) => l === lease).map(([o]) => o));
  const relabelled = new Map<string, number>();
  for (const w of writes) {
    if (w.at < fault.at || !w.label || w.code >= 300 || !share.has(w.object) || relabelled.has(w.object)) continue;
    if (w.labelTo !== lease) relabelled.set(w.object, w.at);
  }
  const relabelTimes = [...relabelled.values()].sort((a, b) => a - b);
  const lastRelabel = relabelTimes[relabelTimes.length - 1];
  // Label writes between the barrier and the last relabel of the share: to the share, and to other objects.
  const labelWritesMeanwhile: Record<string, { share: number; other: number }> = {};
  if (barrier !== undefined && lastRelabel !== undefined) {
    for (const w of writes) {
      if (!w.label || w.at < barrier || w.at > lastRelabel) continue;
      const entry = (labelWritesMeanwhile[w.user] ??= { share: 0, other: 0 });
      if (share.has(w.object)) entry.share++;
      else entry.other++;
    }
  }
  // The takeover: each orphan's first reconcile write by another member, and how long after its relabel it came.
  const firstWrite = new Map<string, number>();
  for (const w of writes) {
    if (w.at <= fault.at || w.label || w.user === fault.member || !orphans.has(w.object)) continue;
    if (!firstWrite.has(w.object)) firstWrite.set(w.object, w.at);
  }
  const firsts = [...firstWrite.values()].sort((a, b) => a - b);
  const afterRelabel = [...firstWrite]
    .filter(([o]) => relabelled.has(o))
    .map(([o, t]) => t - relabelled.get(o)!)
    .sort((a, b) => a - b);
  // The deepest work queue of any other member from the fault to the last takeover write.
  const end = firsts[firsts.length - 1] ?? fault.at + 60_000;
  const queue = depths.filter((d) => d.user !== fault.member && d.at >= fault.at && d.at <= end);
  const deepest = queue.reduce<DepthSample | undefined>((m, d) => (m && m.depth >= d.depth ? m : d), undefined);
  return {
    leaseGoneSeconds: seconds(after(leaseGone)),
    viewAcknowledgedSeconds: seconds(after(barrier)),
    share: share.size,
    shareRelabelled: relabelled.size,
    firstRelabelSeconds: seconds(after(relabelTimes[0])),
    lastRelabelSeconds: seconds(after(lastRelabel)),
    labelWritesMeanwhile,
    orphans: orphans.size,
    orphansTakenOver: firstWrite.size,
    firstTakeoverSeconds: seconds(after(firsts[0])),
    lastTakeoverSeconds: seconds(after(firsts[firsts.length - 1])),
    reconcileAfterRelabelSeconds: {
      median: seconds(afterRelabel[Math.floor(afterRelabel.length / 2)]),
      max: seconds(afterRelabel[afterRelabel.length - 1]),
    },
    deepestWorkQueue: deepest
      ? { user: deepest.user, depth: deepest.depth, atSeconds: seconds(after(deepest.at)) }
      : undefined,
  };
}

/**
 * Shard label writes that put an object back with the member it had before the previous label write (A → B → A:
 * an assignment undoing a move, or the other way round), and the objects they hit: writes that a ring change
 * should not need.
 */
export function labelsWrittenBack(writes: readonly AuditedWrite[]): { writes: number; objects: number } {
  const history = new Map<string, string[]>();
  let back = 0;
  const objects = new Set<string>();
  for (const w of writes) {
    if (w.object.startsWith('leases/') || w.labelTo === undefined || !(w.label || w.verb === 'create')) continue;
    const seq = history.get(w.object) ?? [];
    if (seq[seq.length - 1] === w.labelTo) continue; // the same label again: not a change
    if (seq.length >= 2 && seq[seq.length - 2] === w.labelTo) {
      back++;
      objects.add(w.object);
    }
    seq.push(w.labelTo);
    history.set(w.object, seq);
  }
  return { writes: back, objects: objects.size };
}

/** Shard label writes that set the label an object already had (no change). */
export function labelsRewritten(writes: readonly AuditedWrite[]): number {
  const current = new Map<string, string>();
  let same = 0;
  for (const w of writes) {
    if (w.object.startsWith('leases/') || w.labelTo === undefined || !(w.label || w.verb === 'create')) continue;
    if (w.label && current.get(w.object) === w.labelTo) same++;
    current.set(w.object, w.labelTo);
  }
  return same;
}
