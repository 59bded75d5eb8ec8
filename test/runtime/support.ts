/** Shared helpers of runtime and controller integration tests. */
import { readFileSync } from 'fs';
import { join } from 'path';
import { pathToFileURL } from 'url';
import { parse } from 'yaml';
import { Logger, silentLogger, createLogger } from '../../runtime/log';
import { Manager, ManagerOptions, ManagerShardingOptions } from '../../runtime/manager';

/**
 * Runs a TypeScript file with node and tsx's loader, as a Deployment's pod runs the bundled binary: node itself, not
 * tsx's CLI, which runs the script in a child process of its own that a SIGKILL of the CLI would leave running; without
 * jest's NODE_OPTIONS, which are the test run's, not the child's. For `spawn(command, args, { env })`.
 */
export function tsxCommand(
  file: string,
  args: readonly string[] = [],
): {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
} {
  const root = join(__dirname, '../..');
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_OPTIONS;
  return {
    command: process.execPath,
    args: [
      '--require',
      join(root, 'node_modules/tsx/dist/preflight.cjs'),
      '--import',
      pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href,
      file,
      ...args,
    ],
    env,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * How much longer tests wait on a loaded host: `TEST_TIMEOUT_SCALE` (.ci/run sets it; 1 by default), the factor
 * test/timeout-scale-environment.js applies to jest's test and hook timeouts, so a wait and the test around it grow
 * together.
 */
const TIMEOUT_SCALE = Number(process.env.TEST_TIMEOUT_SCALE || '1');

/**
 * The part of a timed bound that is the host's speed (the test's own requests, the watches, the reconciles), scaled
 * like the waits: what the bound guarantees (a Lease's duration) is added unscaled by the caller. The strict figure,
 * on a quiet machine, is the node suite's kill -9 takeover (Lease + 5 s) and `npm run chaos:sharded`.
 */
export function hostSlackMs(ms: number): number {
  return ms * TIMEOUT_SCALE;
}

/**
 * Tries of a step whose own bound is the product's (a connect within 1 s, an answer within the loop's 5 s) and a
 * starved host may miss: one per slowness allowance, so a quiet host allows exactly one.
 */
export function hostSlackTries(): number {
  return TIMEOUT_SCALE;
}

/** Polls `cond` until it returns a truthy value; fails with `what` after `timeoutMs` (times TIMEOUT_SCALE). */
export async function until<T>(
  what: string,
  cond: () => T | Promise<T>,
  timeoutMs = 10_000,
  stepMs = 20,
): Promise<NonNullable<T>> {
  const waitMs = timeoutMs * TIMEOUT_SCALE;
  const end = Date.now() + waitMs;
  for (;;) {
    const v = await cond();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${waitMs} ms waiting for ${what}`);
    await sleep(stepMs);
  }
}

/** The upstream sample-controller Foo CRD shipped with the controller. */
export function fooCrd(): object {
  return parse(readFileSync(join(__dirname, '../../controllers/foo/crd.yaml'), 'utf8'));
}

/** Silent unless TEST_LOG=debug|info. */
export function testLogger(): Logger {
  const level = process.env.TEST_LOG as 'debug' | 'info' | undefined;
  return level ? createLogger({ level }) : silentLogger;
}

/** Short timings for watchers in tests. */
export const FAST_INFORMER = {
  backoff: { initialMs: 50, maxMs: 500 },
  watchdogMs: 5000,
  resyncPeriodMs: 0,
} as const;

/**
 * A manager with the tests' timings (short informer backoff, quick client retries and shutdown) that fails the test
 * on a fatal error; `options` override any of them.
 */
export function testManager(options: Pick<ManagerOptions, 'kubeConfig'> & Partial<ManagerOptions>): Manager {
  return new Manager({
    logger: testLogger(),
    informer: FAST_INFORMER,
    clientOptions: { retryBaseMs: 20, retryMaxMs: 2000 },
    gracefulShutdownTimeoutMs: 2000,
    onFatalError: (err) => {
      throw err;
    },
    ...options,
  });
}

/** Short Lease timings for the members of a test's shard ring: a member gone is judged dead 3 s after its last renewal. */
export const FAST_RING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 } as const;

/**
 * A member of a test's shard ring (key `uid`, {@link FAST_RING} timings, the tests' short informer timings): the
 * manager's own namespace or watched namespaces, and the ring's name and Lease namespace, are the test's.
 */
export function ringMember(
  options: Pick<ManagerOptions, 'kubeConfig' | 'namespace' | 'namespaces'> & {
    readonly sharding: Pick<
      ManagerShardingOptions,
      | 'ring'
      | 'namespace'
      | 'collectExpiredLeases'
      | 'assignment'
      | 'retryPeriodMs'
      | 'leaseDurationMs'
      | 'renewDeadlineMs'
      | 'replicas'
    >;
  },
): Manager {
  return new Manager({
    ...options,
    logger: testLogger(),
    informer: FAST_INFORMER,
    gracefulShutdownTimeoutMs: 5000,
    sharding: { key: 'uid', ...FAST_RING, ...options.sharding },
  });
}
