/**
 * The operator's PostgreSQL sessions, kept open between reconciles: one idle session per instance address and
 * credentials. A poll of a SampleDB asks each instance for its state and its settings and the primary for its
 * activity, every 10 s; with a connection per call each of them forked a PostgreSQL backend, ran the password
 * exchange and filled a fresh backend's catalog caches (thousands of backends in a CI run of the node suites). A kept
 * session costs PostgreSQL one idle backend per instance instead (CloudNativePG's instance manager keeps its own too).
 *
 * Expected flow: `run(target, fn)` takes the idle session of the target, or connects, runs `fn` on it and keeps it
 * for the next call when `fn` succeeded.
 *
 * Guarantees:
 * - A kept session answers a ping within `timeoutMs` before it is used, as a new connection must connect within
 *   `timeoutMs`: an instance that stopped answering (a partition, a pod gone) is found as fast as before. A ping that
 *   fails at once (PostgreSQL restarted, the session was terminated, the address now answers for another pod) opens
 *   a new connection instead.
 * - A call given a bound (`run`'s `withinMs`) fails when it has not settled by then, and its session is destroyed:
 *   an instance that stops answering in the middle of a call (frozen, partitioned after the ping) holds the caller
 *   that long, not until the statement timeout.
 * - A session whose call failed is destroyed, never kept: its state is unknown (a query may still be running).
 * - A session idle for `idleMs` is closed; `close()` closes every idle one. An idle session does not keep the
 *   process alive (its socket is unref'd).
 *
 * Caveats:
 * - Session state is shared between calls: callers run statements, not `SET` or open transactions.
 */
import { Socket } from 'node:net';
import { Client, ClientConfig } from 'pg';

/** Where a session goes and as whom. */
export interface PgTarget {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
}

interface Session {
  readonly client: Client;
  readonly socket: Socket;
  idleTimer?: NodeJS.Timeout;
}

/** Options of {@link PgSessions}. */
export interface PgSessionsOptions {
  /** Bound of a connect and of a kept session's ping. */
  readonly timeoutMs: number;
  /** How long a session stays open unused. @default 60000 */
  readonly idleMs?: number;
  /** The rest of each connection's configuration (database, application_name, statement timeouts). */
  readonly config: Omit<ClientConfig, 'stream' | 'host' | 'port' | 'user' | 'password'>;
}

/**
 * Closes a connection, or drops it after `ms`. node-postgres's `end()` waits until the server closes its side too: an
 * instance partitioned from the operator right after answering never does, and the socket then waits for the kernel
 * to give up on its FIN (minutes). The reconcile awaiting it would hold the database's failover that long: in a chaos
 * run at a load average of 15, a primary partitioned from the operator fenced itself and no standby was promoted
 * within 60 s.
 */
async function endWithin(session: Session, ms: number): Promise<void> {
  // destroyed, the socket closes at once and end() settles
  if ((await within(session.client.end(), ms)) === 'late') session.socket.destroy();
}

/** `promise` settled (either way: `'settled'`), or `'late'` after `ms`. */
async function within(promise: Promise<unknown>, ms: number): Promise<'settled' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const settled = promise.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Idle PostgreSQL sessions by target (see the module docs). */
export class PgSessions {
  private readonly idle = new Map<string, Session>();

  constructor(private readonly options: PgSessionsOptions) {}

  /**
   * Runs `fn` on a session to `target`: a kept one that answered a ping, else a new one. With `withinMs`, `fn` must
   * settle within it once the session is there, else the call fails and the session is destroyed (which fails the
   * query still pending).
   */
  async run<T>(target: PgTarget, fn: (client: Client) => Promise<T>, withinMs?: number): Promise<T> {
    const key = [target.host, target.port, target.user, target.password].join('\u0000');
    const session = (await this.kept(key, target.host)) ?? (await this.connect(target));
    let result: T;
    try {
      const call = fn(session.client);
      if (withinMs !== undefined && (await within(call, withinMs)) === 'late') {
        throw new Error(`${target.host}: no answer within ${withinMs} ms`);
      }
      result = await call;
    } catch (err) {
      session.socket.destroy();
      throw err;
    }
    this.keep(key, session);
    return result;
  }

  /** Closes every idle session. */
  async close(): Promise<void> {
    const sessions = [...this.idle.values()];
    this.idle.clear();
    for (const s of sessions) clearTimeout(s.idleTimer);
    await Promise.all(sessions.map((s) => endWithin(s, this.options.timeoutMs)));
  }

  /** The idle session of `key` if it answers a ping; throws when it does not answer in time. */
  private async kept(key: string, host: string): Promise<Session | undefined> {
    const session = this.idle.get(key);
    if (!session) return undefined;
    this.idle.delete(key);
    clearTimeout(session.idleTimer);
    session.socket.ref();
    let answered = false;
    const ping = session.client.query('select 1').then(() => (answered = true));
    const late = (await within(ping, this.options.timeoutMs)) === 'late';
    if (answered) return session;
    session.socket.destroy();
    if (late) throw new Error(`${host}: no answer within ${this.options.timeoutMs} ms`);
    return undefined;
  }

  private async connect(target: PgTarget): Promise<Session> {
    // the client's socket is ours (node-postgres's `stream` option), so that closing it can be bounded: endWithin
    const socket = new Socket();
    const client = new Client({
      ...this.options.config,
      stream: () => socket,
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      connectionTimeoutMillis: this.options.timeoutMs,
    });
    client.on('error', () => {
      /* a dropped connection fails the pending query, or the next ping of a kept session */
    });
    try {
      await client.connect();
    } catch (err) {
      socket.destroy();
      throw err;
    }
    return { client, socket };
  }

  /** Keeps `session` as the idle one of `key` (ends it when another is kept already). */
  private keep(key: string, session: Session): void {
    if (this.idle.has(key)) {
      void endWithin(session, this.options.timeoutMs);
      return;
    }
    session.socket.unref();
    session.idleTimer = setTimeout(() => {
      if (this.idle.get(key) !== session) return;
      this.idle.delete(key);
      void endWithin(session, this.options.timeoutMs);
    }, this.options.idleMs ?? 60_000);
    session.idleTimer.unref();
    this.idle.set(key, session);
  }
}
