/** Child processes of the control plane: start, wait until a health URL answers 200, stop (TERM, then KILL). */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { HttpTarget, request } from './http';

/** How much of a process's output is kept for error messages. */
const LOG_TAIL_CHARS = 20_000;

/** Children still running when this process exits (a test runner's worker ending) are killed with it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export class ManagedProcess {
  private readonly child: ChildProcess;
  private output = '';
  private readonly exited: Promise<void>;

  constructor(
    readonly name: string,
    bin: string,
    args: readonly string[],
  ) {
    this.child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (b: Buffer) => {
      this.output = (this.output + b.toString()).slice(-LOG_TAIL_CHARS);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    running.add(this.child);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', () => {
        running.delete(this.child);
        resolve();
      }),
    );
    // a failed spawn (ENOENT) also emits 'exit'; keep the error for the report
    this.child.once('error', (e) => keep(Buffer.from(String(e))));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The process id (for reading /proc). */
  get pid(): number {
    return this.child.pid!;
  }

  /** The last lines the process wrote (stdout and stderr). */
  get log(): string {
    return this.output;
  }

  /** Polls `target` until it answers 200; fails early (with the output) when the process exits. */
  async waitHealthy(target: HttpTarget, path: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.running) {
        throw new Error(
          `envtest: ${this.name} exited (${this.child.exitCode ?? this.child.signalCode}) before becoming ready:\n${this.log}`,
        );
      }
      const code = await request(target, 'GET', path, undefined, { timeoutMs: 2000 }).then(
        (r) => r.code,
        () => 0,
      );
      if (code === 200) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`envtest: ${this.name} not ready at ${target.url}${path} after ${timeoutMs} ms:\n${this.log}`);
  }

  /** Whether the process and its output pipes keep this Node.js process's event loop alive (see ControlPlane.unref). */
  hold(held: boolean): void {
    for (const h of [this.child, this.child.stdout as Socket | null, this.child.stderr as Socket | null]) {
      if (held) h?.ref();
      else h?.unref();
    }
  }

  /**
   * Stops the process (SIGSTOP) and waits until every thread of it has stopped: the kernel stops a process's threads
   * one by one as each next runs, so right after kill() a busy one may still be running (seen on a loaded CI host). A
   * stopped process takes no CPU until {@link thaw}.
   */
  async freeze(timeoutMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGSTOP');
    const deadline = Date.now() + timeoutMs;
    while (!allThreadsStopped(this.pid)) {
      if (Date.now() > deadline) throw new Error(`envtest: ${this.name} not stopped ${timeoutMs} ms after SIGSTOP`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** Continues (SIGCONT) a process stopped by {@link freeze}. */
  thaw(): void {
    if (this.running) this.child.kill('SIGCONT');
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    // a stopped process (freeze) acts on the SIGTERM only once it continues
    this.child.kill('SIGCONT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * Whether every thread of a process is stopped (state T in /proc/<pid>/task/<tid>/stat). Without /proc (not Linux)
 * there is nothing to wait on: true.
 */
function allThreadsStopped(pid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return tids.every((tid) => {
    try {
      // the state is the field after the command name, which is in parentheses and may hold spaces
      return readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].startsWith('T');
    } catch {
      return true; // the thread has exited
    }
  });
}

/** A free loopback TCP port (the OS picks; there is a small race until the child binds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

const helpTexts = new Map<string, string>();

/**
 * Whether a binary's --help mentions a flag (controller-runtime's processState.CheckFlag). The help text is read
 * once per binary and process (a test file starting several control planes asks again each time).
 */
export function supportsFlag(bin: string, flag: string): boolean {
  let help = helpTexts.get(bin);
  if (help === undefined) {
    const r = spawnSync(bin, ['--help'], { encoding: 'utf8', timeout: 10_000 });
    help = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    helpTexts.set(bin, help);
  }
  return help.includes(`--${flag}`);
}
