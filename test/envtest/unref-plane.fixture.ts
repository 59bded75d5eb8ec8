/**
 * Run by control-plane.test.ts in a process of its own: starts a control plane, unrefs it (and with `ref` refs it
 * again), prints the plane's folder, and arms an unreferenced 1 s timer that prints `held` and stops the plane. The
 * timer can only fire while something else keeps the process alive: the plane, when it is held.
 */
import { ControlPlane } from '../../runtime/envtest';

async function main(): Promise<void> {
  const plane = await ControlPlane.start({ controllerManager: false, startTimeoutMs: 150_000 });
  console.log(JSON.stringify({ dir: plane.dir }));
  plane.unref();
  if (process.argv[2] === 'ref') plane.ref();
  setTimeout(() => {
    console.log(JSON.stringify({ held: true }));
    void plane.stop();
  }, 1000).unref();
}

void main();
