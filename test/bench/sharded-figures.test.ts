/**
 * The measured section of docs/sharding.md is exactly what bench/sharded-figures.ts generates from the committed
 * results of `npm run bench:sharded` (bench/latest/sharded-results-<foos>.json), each with its load average.
 */
import * as fs from 'fs';
import { currentShardedSection, shardedFigures, shardedResultFiles, SHARDING_PAGE } from '../../bench/sharded-figures';

describe('the sharded benchmark figures of docs/sharding.md', () => {
  test('the section equals what bench/sharded-figures.ts generates (npx tsx bench/sharded-figures.ts --write)', () => {
    expect(currentShardedSection(fs.readFileSync(SHARDING_PAGE, 'utf8'))).toBe(shardedFigures());
  });

  test('every results file is shown with the load average of each run', () => {
    const files = shardedResultFiles();
    expect(files.length).toBeGreaterThanOrEqual(1);
    const section = shardedFigures();
    for (const f of files) expect(section).toContain(`bench/latest/${f}`);
    expect(section).toContain('1-min load average');
  });
});
