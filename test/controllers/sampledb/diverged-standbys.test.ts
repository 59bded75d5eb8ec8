import { describeDivergence, divergence } from '../../../controllers/sampledb/diverged-standbys';
import { parseLsn, parseTimelineHistory, PgState } from '../../../controllers/sampledb/instances';

const lsn = (s: string) => parseLsn(s)!;
const primary = (timeline: number, history: string): PgState => ({
  recovery: false,
  lsn: lsn('0/5000000'),
  timeline,
  timelineHistory: parseTimelineHistory(history),
  synchronousStandbyNames: '',
});
const standby = (timeline: number | undefined, replay: string | undefined, history?: string): PgState => ({
  recovery: true,
  lsn: lsn('0/5000000'),
  ...(replay ? { replayLsn: lsn(replay) } : {}),
  ...(timeline ? { timeline } : {}),
  ...(history === undefined ? {} : { timelineHistory: parseTimelineHistory(history) }),
  synchronousStandbyNames: '',
});
const line = (timeline: number, at: string) => `${timeline}\t${at}\tno recovery target specified\n`;

describe('timeline history files', () => {
  test('each line a timeline and where it ended; comments, blank and malformed lines skipped', () => {
    const text =
      '1\t0/3000060\tno recovery target specified\n\n# comment\n2\t1/A0000028\tno recovery target specified\nx\ty\n';
    expect(parseTimelineHistory(text)).toEqual([
      { timeline: 1, lsn: lsn('0/3000060') },
      { timeline: 2, lsn: lsn('1/A0000028') },
    ]);
    expect(parseTimelineHistory(null)).toEqual([]);
  });
});

describe('divergence', () => {
  // timeline 3: 1 ended at 0/3000060, 2 at 0/4000000
  const p = primary(3, '1\t0/3000060\tno recovery target specified\n2\t0/4000000\tno recovery target specified\n');

  test('a standby on an older timeline that replayed past where that timeline ended', () => {
    expect(divergence(p, standby(1, '0/3000061'))).toEqual({
      timeline: 1,
      primaryTimeline: 3,
      forkLsn: lsn('0/3000060'),
      replayLsn: lsn('0/3000061'),
      otherHistory: false,
    });
    expect(divergence(p, standby(2, '0/4000100'))?.forkLsn).toBe(lsn('0/4000000'));
  });

  test('not: at or before the fork, on the primary’s timeline, unknown positions, or no primary answering', () => {
    expect(divergence(p, standby(1, '0/3000060'))).toBeUndefined();
    expect(divergence(p, standby(2, '0/3000061'))).toBeUndefined();
    expect(divergence(p, standby(3, '0/9000000'))).toBeUndefined();
    expect(divergence(p, standby(undefined, '0/9000000'))).toBeUndefined();
    expect(divergence(p, standby(1, undefined))).toBeUndefined();
    expect(divergence(undefined, standby(1, '0/9000000'))).toBeUndefined();
    expect(divergence({ ...p, recovery: true }, standby(1, '0/9000000'))).toBeUndefined();
    // a primary whose history does not name the standby's timeline says nothing of it
    expect(divergence(primary(2, ''), standby(1, '0/9000000'))).toBeUndefined();
  });

  test('the standby’s own history, where its file was read: the same answer where it is a part of the primary’s', () => {
    expect(divergence(p, standby(1, '0/3000061', ''))).toEqual(divergence(p, standby(1, '0/3000061')));
    expect(divergence(p, standby(2, '0/4000100', line(1, '0/3000060')))?.forkLsn).toBe(lsn('0/4000000'));
    expect(divergence(p, standby(2, '0/3000100', line(1, '0/3000060')))).toBeUndefined();
    expect(divergence(p, standby(3, '0/9000000', line(1, '0/3000060') + line(2, '0/4000000')))).toBeUndefined();
  });

  test('another timeline of the primary’s ID (two promotions took it): diverged past where the histories part', () => {
    // the primary's timeline 3 forked off timeline 2 at 0/4000000; the standby's timeline 3 forked off it at 0/4800000
    const other = standby(3, '0/4900000', line(1, '0/3000060') + line(2, '0/4800000'));
    const d = divergence(p, other);
    expect(d).toEqual({
      timeline: 3,
      primaryTimeline: 3,
      forkLsn: lsn('0/4000000'),
      replayLsn: lsn('0/4900000'),
      otherHistory: true,
    });
    expect(describeDivergence(d!)).toBe(
      "is on another timeline 3 than the primary's (their histories part at 0/4000000) and replayed it to 0/4900000",
    );
    // the standby's timeline 3 forked off earlier, at 0/3800000: the WAL both hold ends there
    expect(divergence(p, standby(3, '0/4900000', line(1, '0/3000060') + line(2, '0/3800000')))?.forkLsn).toBe(
      lsn('0/3800000'),
    );
    // not yet past the parting: it can still follow
    expect(divergence(p, standby(3, '0/3900000', line(1, '0/3000060') + line(2, '0/4800000')))).toBeUndefined();
  });

  test('an older timeline reached by another fork: diverged past where the histories part', () => {
    // the standby's timeline 2 forked off timeline 1 at 0/3500000, the primary's at 0/3000060
    const d = divergence(p, standby(2, '0/3600000', line(1, '0/3500000')))!;
    expect([d.forkLsn, d.otherHistory]).toEqual([lsn('0/3000060'), true]);
    expect(describeDivergence(d)).toBe(
      'is on timeline 2 (their histories part at 0/3000060) and replayed it to 0/3600000',
    );
  });

  test('not judged: a standby on a newer timeline than the primary’s, a history that does not start on timeline 1', () => {
    expect(
      divergence(p, standby(4, '0/9000000', line(1, '0/3000060') + line(2, '0/4000000') + line(3, '0/5000000'))),
    ).toBeUndefined();
    expect(divergence(p, standby(3, '0/9000000', line(2, '0/4000000')))).toBeUndefined();
  });
});
