/**
 * jest globalTeardown: closes the broker of shared control planes (plane-broker.ts), which stops every plane it holds,
 * and says how many planes the run started for how many suites.
 */
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { BROKER } from './global-setup';
import type { PlaneBroker } from './plane-broker';

export default async function globalTeardown(): Promise<void> {
  const broker = (globalThis as Record<symbol, PlaneBroker | undefined>)[BROKER];
  if (!broker) return;
  await broker.close();
  const { started, acquired, resetFailures } = broker.stats;
  if (acquired) {
    console.log(
      `shared control planes: ${started} started for ${acquired} suites` +
        (resetFailures ? ` (${resetFailures} not reused: reset failed)` : ''),
    );
  }
  if (process.env.ENVTEST_PLANE_BROKER) {
    rmSync(dirname(process.env.ENVTEST_PLANE_BROKER), { recursive: true, force: true });
  }
}
