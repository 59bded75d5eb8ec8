/**
 * The node suites' waits: `until` allows the host's speed (times TEST_TIMEOUT_SCALE, as CI sets it), `untilBound` waits
 * exactly the bound a step asserts.
 */
import { HOST_SLACK_SCALE, until, untilBound } from './harness';

test('until waits its timeout times TEST_TIMEOUT_SCALE; untilBound exactly its own; both report the last error', async () => {
  const failing = () => {
    throw new Error('not yet');
  };
  const started = Date.now();
  await expect(until('a scaled wait', failing, 0.1, 10)).rejects.toThrow(
    `timed out after ${0.1 * HOST_SLACK_SCALE}s waiting for a scaled wait (last error: not yet)`,
  );
  expect(Date.now() - started).toBeGreaterThanOrEqual(100 * HOST_SLACK_SCALE);
  await expect(untilBound('a bound', () => false, 0.1, 10)).rejects.toThrow('timed out after 0.1s waiting for a bound');
  await expect(until('a value', () => 'here', 0.1)).resolves.toBe('here');
});
