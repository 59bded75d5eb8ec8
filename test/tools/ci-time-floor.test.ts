import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { floorReport, parseRun } from '../../tools/ci-time/floor';

const DIR = join(__dirname, '..', '..', 'bench', 'latest', 'ci-time');

test("a rehearsal's wall time, busy CPU-s and exit come from cpu-by-command.sh's last line", () => {
  expect(
    parseRun('x.txt', '  3 calls  1.0 CPU-s  node\nmachine: 1463 s wall, 2643 CPU-s busy (exit 0)\n'),
  ).toStrictEqual({
    file: 'x.txt',
    wallS: 1463,
    busyCpuS: 2643,
    green: true,
  });
  expect(parseRun('y.txt', 'machine: 1440 s wall, 2651 CPU-s busy (exit 1)')?.green).toBe(false);
  expect(parseRun('z.txt', '(process accounting stopped after 30 minutes: partial)')).toBeUndefined();
});

test('bench/latest/ci-time/floor.txt is what tools/ci-time/floor.ts makes of the committed rehearsals', () => {
  expect(readFileSync(join(DIR, 'floor.txt'), 'utf8')).toBe(floorReport(DIR));
});
