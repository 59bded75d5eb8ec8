/**
 * Control planes shared by the test files of a jest run, whichever worker runs them: one per Kubernetes version and
 * configuration, held by one suite at a time and reset to its freshly started state between suites (plane-broker.ts
 * owns them, in jest's own process). A suite opts in with `shared: true` (see describeRealApiServer); suites that
 * restart, compact, fault or measure the plane keep their own.
 *
 * The suite gets a ControlPlane of this test file's own class (its module registry is another realm than the broker's:
 * what a plane's methods return must have this file's Object and Array, which `toStrictEqual` tells apart), made of
 * the plane's fields. Its processes stay with the broker: restarting kube-controller-manager (after CRDs are installed,
 * so that the garbage collector knows them) is asked of the broker, and the plane is released, never stopped here.
 * Without the broker (a runner other than this repository's jest configuration) a suite gets a plane of its own.
 */
import { request as httpRequest } from 'node:http';
import { ControlPlane, ControlPlaneOptions } from '../../runtime/envtest';
import { readCrds } from '../../runtime/envtest/crds';

/** The planes this test file holds, by the broker's id (a private plane: undefined). */
const held = new Map<ControlPlane, number | undefined>();

/**
 * One request to the broker, on a connection of its own (`agent: false`): the default agent keeps connections alive,
 * and the broker's server closes an idle one after 5 s. A worker whose event loop was busy past that (loading the next
 * test file) had not yet read the close and wrote its next request into the dead connection: "write EPIPE" failed the
 * beforeAll of 229 tests in stop 42's CI.
 */
function ask(path: string, body: unknown): Promise<any> {
  const socketPath = process.env.ENVTEST_PLANE_BROKER!;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { socketPath, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const reply = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode !== 200) reject(new Error(`plane broker ${path}: ${reply.error}`));
          else resolve(reply);
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** A running control plane of this configuration, reset and free, with the suite's CRDs installed. */
export async function acquireSharedPlane(opts: ControlPlaneOptions): Promise<ControlPlane> {
  if (!process.env.ENVTEST_PLANE_BROKER) {
    const own = await ControlPlane.start(opts);
    held.set(own, undefined);
    return own;
  }
  const { crds: _crds, crdPaths: _crdPaths, ...options } = opts;
  const { id, plane: fields } = await ask('/acquire', { options });
  const { hasControllerManager, ...rest } = fields;
  const plane: ControlPlane = Object.assign(Object.create(ControlPlane.prototype), rest);
  Object.defineProperties(plane, {
    hasControllerManager: { value: hasControllerManager },
    restartControllerManager: { value: () => ask('/restart-controller-manager', { id }).then(() => undefined) },
    stop: {
      value: () => Promise.reject(new Error('a shared control plane is released (releaseSharedPlane), not stopped')),
    },
  });
  held.set(plane, id);
  try {
    const crds = [...(opts.crds ?? []), ...readCrds(opts.crdPaths ?? [])];
    if (crds.length) await plane.installCrds(crds);
  } catch (e) {
    await releaseSharedPlane(plane);
    throw e;
  }
  return plane;
}

/** Gives a plane back: the broker resets it for the next suite (or stops it when the reset fails). */
export async function releaseSharedPlane(plane: ControlPlane): Promise<void> {
  if (!held.has(plane)) return;
  const id = held.get(plane);
  held.delete(plane);
  if (id === undefined) await plane.stop();
  else await ask('/release', { id });
}
