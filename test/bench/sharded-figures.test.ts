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
  shardedChaosFigures,
  shardedFigures,
  SHARDED_CHAOS_BEFORE,
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

  test('every results file is shown with the load average of each run', () => {
    const files = shardedResultFiles();
    expect(files.length).toBeGreaterThanOrEqual(1);
    const section = shardedFigures();
    for (const f of files) expect(section).toContain(`bench/latest/${f}`);
    expect(section).toContain('1-min load average');
  });
});
