import { divergence } from '../../../controllers/sampledb/diverged-standbys';
import { parseLsn, parseTimelineHistory, PgState } from '../../../controllers/sampledb/instances';

const lsn = (s: string) => parseLsn(s)!;
const primary = (timeline: number, history: string): PgState => ({
  recovery: false,
  lsn: lsn('0/5000000'),
  timeline,
  timelineHistory: parseTimelineHistory(history),
  synchronousStandbyNames: '',
});
const standby = (timeline: number | undefined, replay: string | undefined): PgState => ({
  recovery: true,
  lsn: lsn('0/5000000'),
  ...(replay ? { replayLsn: lsn(replay) } : {}),
  ...(timeline ? { timeline } : {}),
  synchronousStandbyNames: '',
});

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
      forkLsn: lsn('0/3000060'),
      replayLsn: lsn('0/3000061'),
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
});
