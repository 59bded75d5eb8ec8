// jest's node environment, with every test and hook timeout multiplied by TEST_TIMEOUT_SCALE (default 1: unchanged).
// The real-apiserver suites wait on real control planes; a loaded CI host (the landing CI of 2026-11-29 ran the
// test files 3.4 times slower than a quiet run, one of them 13 times) runs out of time while nothing is wrong.
// .ci/run sets the scale; the tests' own waits read the same variable (until() in test/runtime/support.ts), so a wait and
// the test around it grow together. A scale changes how long a test waits, never what it asserts: a bound a test measures (a takeover
// within its Lease) keeps what it guarantees (the Lease) and scales only its allowance for the host's speed (hostSlackMs in
// test/runtime/support.ts); the strict figures are measured on a quiet machine (the node suites, the benchmarks).
//
// jest-circus reads a test's or hook's timeout when it starts it, right after dispatching test_fn_start or
// hook_start to the environment (jest-circus/build/run.js); the default (testTimeout, jest.setTimeout) is read
// once at run_start. Each is scaled there, once.
// When JEST_FILE_LOG is set (tools/ci-time/cpu-by-file.ts), it also logs which worker ran which file when.
const { TestEnvironment } = require('jest-environment-node');

// A jest worker whose files are all done exits at once rather than by tearing its heap down: V8 frees a 700-800 MB
// worker heap page by page before the kernel unmaps it again, and on the 2-core CI machine the three workers' teardowns
// together took longer than the 500 ms jest allows (measured: every worker reached 'beforeExit' with no handle left,
// then "A worker process has failed to exit gracefully" in every run, a warning that blames leaking tests). 'beforeExit'
// fires only once jest-worker has stopped listening for files; process.exit keeps the exit code and skips the teardown
// (an 800 MB process ended in 91-95 ms after its last output against 182-196 ms). Only in jest-worker's child processes.
// It ended the warning in bare runs (0 of 3 after, 5 of 5 before); with the real control planes a worker holds about
// 1 GB at the end and its planes end at the same moment, and jest may still print it once: all three workers had
// reached 'beforeExit' with no handle left in that run too (2026-12-04), so it names no leak.
if (String(process.argv[1]).includes('jest-worker') && !process.__exitWithoutTeardown) {
  process.__exitWithoutTeardown = true;
  process.once('beforeExit', () => process.exit());
}

const SCALE = Number(process.env.TEST_TIMEOUT_SCALE || '1');
if (!(SCALE >= 1)) throw new Error(`TEST_TIMEOUT_SCALE must be a number ≥ 1 (got "${process.env.TEST_TIMEOUT_SCALE}")`);

class TimeoutScaleEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.scaled = new WeakSet();
    this.testPath = context.testPath;
  }

  // tools/ci-time/cpu-by-file.ts sets JEST_FILE_LOG: which worker ran which file when (a line per file)
  async setup() {
    await super.setup();
    this.started = Date.now();
  }

  async teardown() {
    if (process.env.JEST_FILE_LOG) {
      const line = { file: this.testPath, pid: process.pid, start: this.started, end: Date.now() };
      require('node:fs').appendFileSync(process.env.JEST_FILE_LOG, `${JSON.stringify(line)}\n`);
    }
    await super.teardown();
  }

  handleTestEvent(event, state) {
    if (SCALE === 1) return;
    if (event.name === 'run_start') state.testTimeout *= SCALE;
    const item = event.name === 'test_fn_start' ? event.test : event.name === 'hook_start' ? event.hook : undefined;
    // a hook object runs once per test for beforeEach/afterEach, and a retried test starts again: scale once
    if (item && item.timeout && !this.scaled.has(item)) {
      item.timeout *= SCALE;
      this.scaled.add(item);
    }
  }
}

module.exports = TimeoutScaleEnvironment;
