/**
 * The broker of shared control planes: one per jest run, in jest's own process (started by global-setup.ts, closed by
 * global-teardown.ts), serving the test files of every worker over a Unix socket (`ENVTEST_PLANE_BROKER`).
 *
 * Starting a control plane costs about 2.3 s of CPU (etcd, kube-apiserver's post-start hooks); most suites only create
 * CRDs and objects and read the verdicts, so they need a clean plane, not a new one. A plane per jest worker (the pool
 * before this broker) started every configuration once in each of the three workers: 102 planes in one run. Here a
 * plane of a configuration serves whichever worker asks next; a second one starts only while the first is in use.
 *
 * Protocol (JSON over HTTP): `POST /acquire {options}` → `{ id, plane }` (the plane's fields, without its processes:
 * shared-planes.ts makes a ControlPlane of them in the worker); `POST /release {id}` answers at once and resets the
 * plane to its baseline (plane-reset.ts) in the background; a plane that cannot be reset is stopped, not reused;
 * `POST /restart-controller-manager {id}` restarts the plane's kube-controller-manager (its process lives here).
 *
 * Idle planes are capped (MAX_IDLE, `ENVTEST_SHARED_PLANES_MAX_IDLE`): each holds an apiserver and an etcd whose data
 * lives in /dev/shm, and a run meets dozens of configurations (43 alive at once exhausted a 2-core CI machine's memory
 * before the cap). The least recently used idle plane is stopped first. An idle plane is also stopped after IDLE_MS
 * (`ENVTEST_SHARED_PLANES_IDLE_MS`): an idle kube-apiserver and its etcd still take 2-4 % of a core, so a plane nobody
 * asked for in a minute is cheaper started again.
 */
import { rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { Baseline, resetToBaseline, snapshot } from './plane-reset';
import { ControlPlane, ControlPlaneOptions } from '../../runtime/envtest';

/** Idle planes kept: about one per version of the commonest configurations. */
const MAX_IDLE = Number(process.env.ENVTEST_SHARED_PLANES_MAX_IDLE ?? 8);
/** How long a plane may stay idle before it is stopped. */
const IDLE_MS = Number(process.env.ENVTEST_SHARED_PLANES_IDLE_MS ?? 60_000);

type State = 'in use' | 'resetting' | 'idle';

interface Pooled {
  readonly id: number;
  readonly key: string;
  readonly plane: ControlPlane;
  readonly baseline: Baseline;
  state: State;
  /** Settles when a reset ends (the plane idle again, or stopped). */
  reset?: Promise<void>;
  releasedAt: number;
  idleTimer?: NodeJS.Timeout;
}

/** What a run did with its planes (printed by global-teardown.ts). */
export interface BrokerStats {
  readonly started: number;
  readonly acquired: number;
  readonly resetFailures: number;
}

/** What identifies a configuration: everything but the CRDs, which are installed per suite. */
export function keyOf(opts: ControlPlaneOptions): string {
  const { crds: _crds, crdPaths: _crdPaths, ...rest } = opts;
  return JSON.stringify(rest, Object.keys(rest).sort());
}

/** The fields of a running plane a worker needs to use it (not its processes, which stay here). */
function fieldsOf(plane: ControlPlane): Record<string, unknown> {
  const { etcd: _e, apiServer: _a, controllerManager: _c, ...fields } = plane as unknown as Record<string, unknown>;
  return { ...fields, hasControllerManager: plane.hasControllerManager };
}

export class PlaneBroker {
  /** Listens on the Unix socket `path`. */
  static async listen(path: string): Promise<PlaneBroker> {
    rmSync(path, { force: true });
    const broker = new PlaneBroker();
    await new Promise<void>((resolve, reject) => {
      broker.server.once('error', reject);
      broker.server.listen(path, resolve);
    });
    return broker;
  }

  private readonly planes: Pooled[] = [];
  private readonly server: Server;
  private nextId = 1;
  private started = 0;
  private acquired = 0;
  private resetFailures = 0;
  private closed = false;

  private constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  get stats(): BrokerStats {
    return { started: this.started, acquired: this.acquired, resetFailures: this.resetFailures };
  }

  /** Stops listening and stops every plane. */
  async close(): Promise<void> {
    this.closed = true;
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.all(this.planes.map((p) => p.reset)); // a reset under way ends first (it has its own budget)
    await Promise.all(this.planes.splice(0).map((p) => this.stopPlane(p)));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
    const reply = (code: number, value: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    try {
      if (req.url === '/acquire') {
        const entry = await this.acquire(body.options as ControlPlaneOptions);
        reply(200, { id: entry.id, plane: fieldsOf(entry.plane) });
      } else if (req.url === '/release') {
        reply(200, {});
        this.release(this.byId(body.id));
      } else if (req.url === '/restart-controller-manager') {
        await this.byId(body.id).plane.restartControllerManager();
        reply(200, {});
      } else {
        reply(404, { error: `no such request: ${req.url}` });
      }
    } catch (e) {
      reply(500, { error: (e as Error).message });
    }
  }

  private byId(id: number): Pooled {
    const entry = this.planes.find((p) => p.id === id);
    if (!entry) throw new Error(`no shared control plane ${id}`);
    return entry;
  }

  private async acquire(opts: ControlPlaneOptions): Promise<Pooled> {
    if (this.closed) throw new Error('the plane broker is closed');
    const key = keyOf(opts);
    for (;;) {
      const idle = this.planes.find((p) => p.key === key && p.state === 'idle');
      if (idle) {
        clearTimeout(idle.idleTimer);
        idle.state = 'in use';
        this.acquired++;
        return idle;
      }
      // a plane of this configuration being reset is free within a second or two: cheaper than a new one
      const resetting = this.planes.find((p) => p.key === key && p.state === 'resetting');
      if (!resetting) break;
      await resetting.reset;
    }
    await this.stopIdleBeyond(MAX_IDLE - 1);
    const plane = await ControlPlane.start({ ...opts, crds: undefined, crdPaths: undefined });
    this.started++;
    this.acquired++;
    const entry: Pooled = {
      id: this.nextId++,
      key,
      plane,
      baseline: await snapshot(plane),
      state: 'in use',
      releasedAt: 0,
    };
    this.planes.push(entry);
    return entry;
  }

  private release(entry: Pooled): void {
    entry.state = 'resetting';
    entry.reset = resetToBaseline(entry.plane, entry.baseline).then(
      async () => {
        entry.state = 'idle';
        entry.releasedAt = Date.now();
        entry.idleTimer = setTimeout(() => void this.stopIfIdle(entry), IDLE_MS).unref();
        await this.stopIdleBeyond(MAX_IDLE);
      },
      async (e) => {
        this.resetFailures++;
        console.warn(`shared control plane not reused (reset failed: ${(e as Error).message})`);
        const i = this.planes.indexOf(entry);
        if (i >= 0) this.planes.splice(i, 1);
        await this.stopPlane(entry);
      },
    );
  }

  /** Stops the least recently released idle planes until at most `keep` are idle. */
  private async stopIdleBeyond(keep: number): Promise<void> {
    const idle = this.planes.filter((p) => p.state === 'idle').sort((a, b) => a.releasedAt - b.releasedAt);
    await Promise.all(idle.slice(0, Math.max(0, idle.length - keep)).map((p) => this.stopIfIdle(p)));
  }

  /** Takes an idle plane out of the pool (synchronously, so nobody acquires it meanwhile) and stops it. */
  private async stopIfIdle(entry: Pooled): Promise<void> {
    const i = this.planes.indexOf(entry);
    if (entry.state !== 'idle' || i < 0) return;
    this.planes.splice(i, 1);
    await this.stopPlane(entry);
  }

  private async stopPlane(entry: Pooled): Promise<void> {
    clearTimeout(entry.idleTimer);
    await entry.plane.stop().catch(() => undefined);
  }
}
