import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** jest on the fixture with the project's test environment and a given TEST_TIMEOUT_SCALE: its summary line. */
function runFixture(scale: string): { code: number | null; summary: string; stderr: string } {
  const root = join(__dirname, 'fixtures', 'timeout-scale');
  const config = {
    rootDir: root,
    testMatch: ['**/*.fixture.js'],
    testEnvironment: join(__dirname, 'timeout-scale-environment.js'),
    transform: {},
  };
  const r = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--ci', '--config', JSON.stringify(config)],
    {
      encoding: 'utf8',
      env: { ...process.env, TEST_TIMEOUT_SCALE: scale, NODE_OPTIONS: '' },
    },
  );
  return { code: r.status, summary: /^Tests:.*$/m.exec(r.stderr)?.[0] ?? '', stderr: r.stderr };
}

describe('TEST_TIMEOUT_SCALE (test/timeout-scale-environment.js)', () => {
  test("unscaled, a test's, a hook's and the default timeout each fail a 400 ms wait against 150 ms", () => {
    expect(runFixture('1')).toMatchObject({ code: 1, summary: expect.stringMatching(/^Tests: +3 failed, 3 total$/) });
  });

  test('scaled by 5, the same waits pass', () => {
    expect(runFixture('5')).toMatchObject({ code: 0, summary: expect.stringMatching(/^Tests: +3 passed, 3 total$/) });
  });

  test('a scale below 1 or not a number is refused', () => {
    for (const scale of ['0.5', 'x']) {
      const r = runFixture(scale);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`TEST_TIMEOUT_SCALE must be a number ≥ 1 (got "${scale}")`);
    }
  });
});
