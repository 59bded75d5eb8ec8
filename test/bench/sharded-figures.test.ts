/**
 * The measured sections of docs/sharding.md are exactly what bench/sharded-figures.ts generates from the committed
 * results of `npm run bench:sharded` (bench/latest/sharded-results-<foos>.json) and `npm run chaos:sharded`
 * (bench/latest/sharded-chaos.json), each with its load average.
 */
import * as fs from 'fs';
import {
  CHAOS_BEFORE_BEGIN,
  CHAOS_BEFORE_END,
  CHAOS_BEGIN,
  CHAOS_END,
  currentSection,
  currentShardedSection,
  NODE_FLAGS_BEGIN,
  NODE_FLAGS_END,
  nodeFlagsFigures,
  nodeFlagsFiles,
  shardedChaosFigures,
  shardedFigures,
  SHARDED_CHAOS_BEFORE,
  SHARDED_LATEST,
  shardedResultFiles,
  SHARDING_PAGE,
} from '../../bench/sharded-figures';

describe('the sharded benchmark figures of docs/sharding.md', () => {
  test('the section equals what bench/sharded-figures.ts generates (npx tsx bench/sharded-figures.ts --write)', () => {
    expect(currentShardedSection(fs.readFileSync(SHARDING_PAGE, 'utf8'))).toBe(shardedFigures());
  });

  test('the chaos section equals what bench/sharded-figures.ts generates from bench/latest/sharded-chaos.json', () => {
    const section = currentSection(fs.readFileSync(SHARDING_PAGE, 'utf8'), CHAOS_BEGIN, CHAOS_END);
    expect(section).toBe(shardedChaosFigures());
    expect(section).toContain('1-min load average');
  });

  test('the chaos run before the takeover fixes is shown as generated from its file', () => {
    const section = currentSection(fs.readFileSync(SHARDING_PAGE, 'utf8'), CHAOS_BEFORE_BEGIN, CHAOS_BEFORE_END);
    expect(section).toBe(shardedChaosFigures(SHARDED_CHAOS_BEFORE, CHAOS_BEFORE_BEGIN, CHAOS_BEFORE_END));
  });

  test("the probes of Node's and glibc's settings are shown as generated, each setting's pair of runs a row", () => {
    const section = currentSection(fs.readFileSync(SHARDING_PAGE, 'utf8'), NODE_FLAGS_BEGIN, NODE_FLAGS_END);
    expect(section).toBe(nodeFlagsFigures());
    const files = nodeFlagsFiles();
    expect(files.length).toBeGreaterThanOrEqual(1);
    for (const f of files) {
      expect(section).toContain(`bench/latest/${f}`);
      const runs = JSON.parse(fs.readFileSync(`${SHARDED_LATEST}/${f}`, 'utf8')).runs;
      const pairs = runs.filter((r: any, i: number) => r.members === 4 && runs[i - 1]?.members === 0).length;
      expect(pairs).toBeGreaterThanOrEqual(1);
      expect(
        section!.split('\n').filter((l) => l.includes(`| ${runs[0].foos.toLocaleString('en-US')} |`)),
      ).toHaveLength(pairs);
    }
  });

  test('every results file is shown with the load average of each run', () => {
    const files = shardedResultFiles();
    expect(files.length).toBeGreaterThanOrEqual(1);
    const section = shardedFigures();
    for (const f of files) expect(section).toContain(`bench/latest/${f}`);
    expect(section).toContain('1-min load average');
  });
});
