/**
 * The chaos suite's checkers on synthetic histories: histories that must pass and histories that
 * must fail (a lost acknowledged write, two writable primaries, a write on a deposed primary's
 * timeline, a forked timeline history).
 */
import { FencingViolation, fencingViolations, ProbeRound, secondPrimaryRounds } from './fencing';
import {
  Ack,
  duplicateAcks,
  FaultWindow,
  lossPerFault,
  lostWrites,
  outagePerFault,
  parseWriterLog,
  percentile,
} from './history';
import { FAULT_KINDS, faultSchedule } from './schedule';
import { parseHistoryFile, TimelineHistory } from './timeline';

const ack = (id: number, at: number, writer = 1): Ack => ({ writer, id, at });

describe('writer log', () => {
  test('acknowledgements and failures are read; other lines ignored', () => {
    const log =
      'writer 1 starting\nok 1000000001 1700000000000 10.244.0.7\nerr 1000000002 1700000000100\npsql: error: connection refused\nok 1000000003 1700000000200 10.244.0.9\n';
    const { acks, failures } = parseWriterLog(log, 1);
    expect(acks).toEqual([
      { writer: 1, id: 1000000001, at: 1700000000000, server: '10.244.0.7' },
      { writer: 1, id: 1000000003, at: 1700000000200, server: '10.244.0.9' },
    ]);
    expect(failures).toEqual([{ writer: 1, id: 1000000002, at: 1700000000100 }]);
  });

  test('a malformed acknowledgement line is an error, not a silently dropped write', () => {
    expect(() => parseWriterLog('ok 12x 1700000000000', 2)).toThrow(
      /writer 2: malformed acknowledgement line 'ok 12x 1700000000000'/,
    );
  });

  test('duplicate acknowledgements are found', () => {
    expect(duplicateAcks([ack(1, 1), ack(2, 2), ack(1, 3)])).toEqual([1]);
    expect(duplicateAcks([ack(1, 1), ack(2, 2)])).toEqual([]);
  });
});

describe('lost writes', () => {
  const faults: FaultWindow[] = [
    { index: 0, kind: 'primary-delete', injectedAt: 10_000, recoveredAt: 20_000 },
    { index: 1, kind: 'partition', injectedAt: 30_000, recoveredAt: 50_000 },
  ];

  test('every acknowledged id present: nothing lost', () => {
    const acks = [ack(1, 1000), ack(2, 9000), ack(3, 25_000)];
    expect(lostWrites(acks, new Set([1, 2, 3, 4]))).toEqual([]);
    expect(lossPerFault([], faults).map((f) => f.rows)).toEqual([0, 0]);
  });

  test('an acknowledged id missing from the final table is lost, and attributed to its failover', () => {
    const acks = [ack(1, 1000), ack(2, 9000), ack(3, 9500), ack(4, 25_000), ack(5, 31_000), ack(6, 60_000)];
    const lost = lostWrites(acks, new Set([1, 4, 6]));
    expect(lost.map((a) => a.id)).toEqual([2, 3, 5]);
    const loss = lossPerFault(lost, faults);
    expect(loss).toEqual([
      { index: 0, kind: 'primary-delete', rows: 2, seconds: 0.5, acknowledgedAfterInjection: 0 },
      // acknowledged 1 s after the partition started: a deposed primary still acknowledging
      { index: 1, kind: 'partition', rows: 1, seconds: 0, acknowledgedAfterInjection: 1 },
    ]);
  });

  test('an indeterminate (failed) insert that is present is not a violation, one that is absent neither', () => {
    const { acks, failures } = parseWriterLog('ok 1 1000 a\nerr 2 1100\nerr 3 1200\n', 1);
    expect(failures).toHaveLength(2);
    expect(lostWrites(acks, new Set([1, 2]))).toEqual([]);
  });

  test('losses after the last recovery are reported separately', () => {
    const loss = lossPerFault([ack(9, 70_000)], faults);
    expect(loss[loss.length - 1]).toEqual({
      index: -1,
      kind: 'after-last-fault',
      rows: 1,
      seconds: 0,
      acknowledgedAfterInjection: 0,
    });
  });
});

describe('write outage', () => {
  test('the longest gap between acknowledgements overlapping the fault window', () => {
    // acks every 100 ms: the last before the hole at 9.9 s, the next at 16.0 s; a smaller hole 16.9–18.5 s
    const times = [...range(0, 10_000, 100), ...range(16_000, 17_000, 100), ...range(18_500, 30_000, 100)];
    const acks = times.map((t, i) => ack(i, t));
    const out = outagePerFault(acks, [{ index: 0, kind: 'primary-delete', injectedAt: 10_050, recoveredAt: 20_000 }]);
    expect(out.get(0)).toBeCloseTo(6.1, 3);
  });

  test('a gap still open at recovery is closed by the next acknowledgement, or by the end', () => {
    const acks = [ack(1, 1000), ack(2, 9000)];
    expect(outagePerFault(acks, [{ index: 0, kind: 'k', injectedAt: 5000, recoveredAt: 6000 }], 12_000).get(0)).toBe(8);
    expect(
      outagePerFault([ack(1, 1000)], [{ index: 0, kind: 'k', injectedAt: 5000, recoveredAt: 6000 }], 12_000).get(0),
    ).toBe(11);
  });

  test('percentiles (nearest rank)', () => {
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 100)).toBe(5);
    expect(percentile([], 50)).toBeUndefined();
  });
});

describe('fencing', () => {
  const round = (at: number, ...probes: ProbeRound['probes']): ProbeRound => ({ at, probes });
  const kinds = (v: FencingViolation[]) => v.map((x) => x.kind);

  test('one writable instance per round, timelines only moving forward: no violation', () => {
    const rounds = [
      round(1, { pod: 'db-0', acked: true, timeline: 1 }, { pod: 'db-1', acked: false, recovery: true }),
      round(2, { pod: 'db-0', acked: false }, { pod: 'db-1', acked: false, recovery: true }),
      round(3, { pod: 'db-0', acked: false, recovery: true }, { pod: 'db-1', acked: true, timeline: 2 }),
    ];
    expect(fencingViolations(rounds)).toEqual([]);
  });

  test('two instances acknowledging writes in one round is a violation', () => {
    const v = fencingViolations([
      round(1, { pod: 'db-0', acked: true, timeline: 1 }, { pod: 'db-1', acked: true, timeline: 2 }),
    ]);
    expect(kinds(v)).toEqual(['two-writable']);
    expect(v[0].detail).toContain('db-0 (timeline 1) and db-1 (timeline 2)');
  });

  test('the old primary acknowledging a write after another was promoted is a violation, even alone in its round', () => {
    const v = fencingViolations([
      round(1, { pod: 'db-0', acked: true, timeline: 1 }),
      round(2, { pod: 'db-1', acked: true, timeline: 2 }),
      round(3, { pod: 'db-0', acked: true, timeline: 1 }, { pod: 'db-1', acked: false }),
    ]);
    expect(kinds(v)).toEqual(['stale-timeline-write']);
    expect(v[0].detail).toBe('db-0 acknowledged a write on timeline 1 after db-1 wrote on timeline 2');
  });

  test('an old primary that answers but cannot commit (no synchronous standby) is not writable, but is a second primary', () => {
    const rounds = [
      round(1, { pod: 'db-1', acked: true, recovery: false, timeline: 2 }),
      round(
        2,
        { pod: 'db-0', acked: false, recovery: false, timeline: 1 },
        { pod: 'db-1', acked: true, recovery: false, timeline: 2 },
      ),
      round(
        3,
        { pod: 'db-0', acked: false, recovery: true },
        { pod: 'db-1', acked: true, recovery: false, timeline: 2 },
      ),
    ];
    expect(fencingViolations(rounds)).toEqual([]);
    expect(secondPrimaryRounds(rounds)).toEqual([{ at: 2, pods: ['db-0', 'db-1'] }]);
  });
});

describe('timeline history', () => {
  test('history files parse; comments and blanks skipped; a malformed line throws', () => {
    expect(
      parseHistoryFile('1\t0/3000158\tno recovery target specified\n\n2\t0/5000060\tno recovery target specified\n'),
    ).toEqual([
      { parent: 1, switchLsn: '0/3000158' },
      { parent: 2, switchLsn: '0/5000060' },
    ]);
    expect(() => parseHistoryFile('1 nonsense')).toThrow(/malformed/);
  });

  test('histories of every instance that agree form one chain', () => {
    const h = new TimelineHistory();
    h.add(2, '1\t0/3000158\treason\n', 'db-1');
    h.add(3, '1\t0/3000158\treason\n2\t0/5000060\treason\n', 'db-2');
    h.add(3, '1\t0/3000158\treason\n2\t0/5000060\treason\n', 'db-0');
    expect(h.chain()).toEqual([1, 2, 3]);
    expect(h.problems()).toEqual([]);
  });

  test('two promotions from the same timeline (a split brain) are a fork', () => {
    const h = new TimelineHistory();
    h.add(2, '1\t0/3000158\treason\n', 'db-1');
    h.add(2, '1\t0/3000200\treason\n', 'db-2');
    expect(h.problems()).toEqual([
      'fork: timeline 1 was left for 2 at 0/3000158 (db-1:2.history) and for 2 at 0/3000200 (db-2:2.history)',
    ]);
  });

  test('the same timeline left for two different children is a fork', () => {
    const h = new TimelineHistory();
    h.add(2, '1\t0/3000158\treason\n', 'db-1');
    h.add(3, '1\t0/3000158\treason\n', 'db-2');
    expect(h.problems()[0]).toMatch(/^fork: timeline 1 was left for 2 .* and for 3 /);
  });
});

describe('schedule', () => {
  test('seeded: same seed, same schedule; every kind exactly perKind times', () => {
    const a = faultSchedule(42, 3);
    expect(faultSchedule(42, 3)).toEqual(a);
    expect(faultSchedule(43, 3)).not.toEqual(a);
    for (const k of FAULT_KINDS) expect(a.filter((f) => f.kind === k)).toHaveLength(3);
    expect(a.map((f) => f.index)).toEqual([...Array(3 * FAULT_KINDS.length).keys()]);
    expect(a.every((f) => f.jitter >= 0 && f.jitter < 1)).toBe(true);
    // in rounds: every whole round holds each kind once, so a run stopped between rounds stays balanced
    for (let r = 0; r < 3; r++) {
      expect(new Set(a.slice(r * FAULT_KINDS.length, (r + 1) * FAULT_KINDS.length).map((f) => f.kind)).size).toBe(
        FAULT_KINDS.length,
      );
    }
    expect(a.slice(0, FAULT_KINDS.length).map((f) => f.kind)).not.toEqual([...FAULT_KINDS]);
  });
});

function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += step) out.push(t);
  return out;
}
