/**
 * The history checker of the chaos suite (Jepsen's approach): every write a writer pod attempted is
 * recorded with its outcome, and after the faults the history is checked against the final state.
 *
 * - An *acknowledged* write is an insert whose commit the client saw succeed. It must be in the
 *   final table (with `synchronous: true`); a missing one is *lost*.
 * - A failed or timed-out insert is *indeterminate* (the commit may have happened before the
 *   connection broke, as Jepsen's "info" operations): present or absent, it is never a violation.
 * - Lost writes are attributed to the fault whose window (after the previous fault's recovery, up
 *   to this fault's recovery) holds their acknowledgement: the RPO of that failover, in rows and in
 *   seconds of writes.
 * - The write outage of a fault is the longest interval without any acknowledged write (all writers
 *   together) that overlaps the fault's window.
 *
 * Pure functions over plain data: unit-tested on synthetic histories (history.test.ts).
 */

/** One acknowledged insert: writer, unique id, when the client saw the commit (ms since epoch), which server answered. */
export interface Ack {
  readonly writer: number;
  readonly id: number;
  readonly at: number;
  readonly server?: string;
}

/** One insert the client saw fail (connection refused, broken, read-only server, timeout). */
export interface Failure {
  readonly writer: number;
  readonly id: number;
  readonly at: number;
}

/** A fault's window: injected at, recovered at (every check passed), and the failover it caused if any. */
export interface FaultWindow {
  readonly index: number;
  readonly kind: string;
  readonly injectedAt: number;
  readonly recoveredAt: number;
}

/**
 * A writer pod's log: one line per attempt, `ok <id> <ms> <server-ip>` or `err <id> <ms>`.
 * Other lines (the shell's own messages, psql errors) are ignored; a malformed `ok` line throws,
 * since a dropped acknowledgement would hide a loss.
 */
export function parseWriterLog(text: string, writer: number): { acks: Ack[]; failures: Failure[] } {
  const acks: Ack[] = [];
  const failures: Failure[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === 'ok') {
      const id = Number(f[1]);
      const at = Number(f[2]);
      if (!Number.isSafeInteger(id) || !Number.isSafeInteger(at)) {
        throw new Error(`writer ${writer}: malformed acknowledgement line '${line}'`);
      }
      acks.push({ writer, id, at, ...(f[3] ? { server: f[3] } : {}) });
    } else if (f[0] === 'err' && f.length >= 3) {
      failures.push({ writer, id: Number(f[1]), at: Number(f[2]) });
    }
  }
  return { acks, failures };
}

/** Acknowledged writes whose id is not in `present` (the final table), oldest first. */
export function lostWrites(acks: readonly Ack[], present: ReadonlySet<number>): Ack[] {
  return acks.filter((a) => !present.has(a.id)).sort((a, b) => a.at - b.at);
}

/** Ids acknowledged twice (a writer bug or a duplicated log): the history is then unusable. */
export function duplicateAcks(acks: readonly Ack[]): number[] {
  const seen = new Set<number>();
  const dup = new Set<number>();
  for (const a of acks) (seen.has(a.id) ? dup : seen).add(a.id);
  return [...dup].sort((a, b) => a - b);
}

/** Lost writes of one fault: rows, and the span of writes they cover. */
export interface FaultLoss {
  readonly index: number;
  readonly kind: string;
  readonly rows: number;
  /** From the first to the last lost acknowledgement, in seconds (0 for one row or none). */
  readonly seconds: number;
  /** Lost writes acknowledged after the fault was injected (a deposed primary still acknowledging). */
  readonly acknowledgedAfterInjection: number;
}

/**
 * Lost writes per fault: a lost acknowledgement belongs to the first fault that recovered at or after it
 * (its window runs from the previous recovery to its own). Lost writes after the last recovery are
 * reported under index -1.
 */
export function lossPerFault(lost: readonly Ack[], faults: readonly FaultWindow[]): FaultLoss[] {
  const ordered = [...faults].sort((a, b) => a.recoveredAt - b.recoveredAt);
  const buckets = new Map<number, Ack[]>();
  for (const a of lost) {
    const f = ordered.find((w) => a.at <= w.recoveredAt);
    const key = f ? f.index : -1;
    buckets.set(key, [...(buckets.get(key) ?? []), a]);
  }
  return ordered
    .map((f) => ({ f, rows: buckets.get(f.index) ?? [] }))
    .concat(
      buckets.has(-1)
        ? [
            {
              f: { index: -1, kind: 'after-last-fault', injectedAt: Infinity, recoveredAt: Infinity },
              rows: buckets.get(-1)!,
            },
          ]
        : [],
    )
    .map(({ f, rows }) => ({
      index: f.index,
      kind: f.kind,
      rows: rows.length,
      seconds: rows.length ? (Math.max(...rows.map((r) => r.at)) - Math.min(...rows.map((r) => r.at))) / 1000 : 0,
      acknowledgedAfterInjection: rows.filter((r) => r.at > f.injectedAt).length,
    }));
}

/**
 * The write outage of each fault, in seconds: the longest interval without an acknowledged write
 * (any writer) that overlaps [injectedAt, recoveredAt]. An interval still open at recovery is closed
 * by the next acknowledgement (or, with none, counted up to `end`).
 */
export function outagePerFault(
  acks: readonly Ack[],
  faults: readonly FaultWindow[],
  end: number = Date.now(),
): Map<number, number> {
  const times = acks.map((a) => a.at).sort((a, b) => a - b);
  const out = new Map<number, number>();
  for (const f of faults) {
    let prev = f.injectedAt;
    for (const t of times) {
      if (t <= f.injectedAt) prev = t;
      else break;
    }
    let worst = 0;
    let closed = false;
    for (const t of times) {
      if (t <= f.injectedAt) continue;
      worst = Math.max(worst, t - prev);
      prev = t;
      if (t >= f.recoveredAt) {
        closed = true;
        break;
      }
    }
    if (!closed) worst = Math.max(worst, end - prev);
    out.set(f.index, worst / 1000);
  }
  return out;
}

/** The p-th percentile (nearest rank) of `values`; undefined when empty. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
