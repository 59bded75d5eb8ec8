/**
 * Linear timeline history: PostgreSQL starts a new timeline at each promotion and writes
 * `<tli>.history` (one line per ancestor: parent timeline, the WAL position where it was left, the
 * reason). Every instance's history files are merged into one map *timeline → (parent, switch
 * position)*; the history is linear when no two files disagree on a timeline's parent or switch
 * position (two promotions from the same timeline at different points, or two timelines with the
 * same number, are a fork: a split brain) and each timeline's parent is the one just below it on
 * a single chain.
 */

/** One line of a history file: timeline `tli` was left at `switchLsn` for timeline `tli`+…, i.e. its child. */
export interface HistoryEntry {
  readonly parent: number;
  readonly switchLsn: string;
}

/** Parses `<child>.history`: `parentTLI<TAB>switchpoint<TAB>reason` lines (comments and blanks skipped). */
export function parseHistoryFile(text: string): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (!t || t.startsWith('#')) continue;
    const [parent, switchLsn] = t.split(/\s+/);
    if (!/^\d+$/.test(parent) || !/^[0-9A-F]+\/[0-9A-F]+$/i.test(switchLsn ?? '')) {
      throw new Error(`malformed timeline history line '${line}'`);
    }
    out.push({ parent: Number(parent), switchLsn: switchLsn.toUpperCase() });
  }
  return out;
}

/** Merged history: for each timeline that was left, where it was left and which timeline followed. */
export class TimelineHistory {
  /** parent timeline → { child, switchLsn, seenIn } */
  private readonly edges = new Map<number, { child: number; switchLsn: string; seenIn: string }>();

  readonly conflicts: string[] = [];

  /** Adds the history file of timeline `child` as read on `source` (e.g. a pod name). */
  add(child: number, text: string, source: string): void {
    const entries = parseHistoryFile(text);
    // Line i says: timeline entries[i].parent was left at switchLsn; the next timeline is entries[i+1].parent, or `child`.
    entries.forEach((e, i) => {
      const next = i + 1 < entries.length ? entries[i + 1].parent : child;
      this.edge(e.parent, next, e.switchLsn, `${source}:${child}.history`);
    });
  }

  private edge(parent: number, child: number, switchLsn: string, seenIn: string): void {
    if (child <= parent) this.conflicts.push(`${seenIn}: timeline ${child} follows timeline ${parent} (not newer)`);
    const known = this.edges.get(parent);
    if (!known) {
      this.edges.set(parent, { child, switchLsn, seenIn });
      return;
    }
    if (known.child !== child || known.switchLsn !== switchLsn) {
      this.conflicts.push(
        `fork: timeline ${parent} was left for ${known.child} at ${known.switchLsn} (${known.seenIn}) and for ${child} at ${switchLsn} (${seenIn})`,
      );
    }
  }

  /** The chain from timeline 1 (or the lowest known), e.g. [1, 2, 3]. */
  chain(): number[] {
    if (!this.edges.size) return [1];
    const children = new Set([...this.edges.values()].map((e) => e.child));
    let t = Math.min(...[...this.edges.keys()].filter((p) => !children.has(p)), ...this.edges.keys());
    const out = [t];
    while (this.edges.has(t) && out.length <= this.edges.size + 1) {
      t = this.edges.get(t)!.child;
      out.push(t);
    }
    return out;
  }

  /** Conflicts, plus timelines known but not on the single chain (a branch). */
  problems(): string[] {
    const onChain = new Set(this.chain());
    const off = [...this.edges.entries()]
      .filter(([p, e]) => !onChain.has(p) || !onChain.has(e.child))
      .map(([p, e]) => `timeline ${p}→${e.child} (${e.seenIn}) is off the chain ${this.chain().join('→')}`);
    return [...this.conflicts, ...off];
  }
}
