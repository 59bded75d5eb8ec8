/**
 * How much longer tests wait on a loaded host: `TEST_TIMEOUT_SCALE` (.ci/run sets it; 1 by default), the factor
 * test/timeout-scale-environment.js applies to jest's test and hook timeouts. Waits a test makes itself (polling
 * until a condition holds) multiply their timeout by it, so the wait and the test around it grow together.
 */
export const TIMEOUT_SCALE = Number(process.env.TEST_TIMEOUT_SCALE || '1');
