/**
 * Jittered exponential backoff that resets after a healthy period (client-go reflector / kube-rs
 * watcher defaults: 800 ms → 30 s, factor 2, reset after 2 min without failures).
 */

/** Options of {@link Backoff}. */
export interface BackoffOptions {
  /** First delay. @default 800 */
  readonly initialMs?: number;
  /** Largest delay. @default 30000 */
  readonly maxMs?: number;
  /** Growth factor. @default 2 */
  readonly factor?: number;
  /** Fraction of random jitter added (0..1). @default 0.5 */
  readonly jitter?: number;
  /** A failure after this long since the previous one starts over at `initialMs`. @default 120000 */
  readonly resetAfterMs?: number;
}

/** Stateful backoff. */
export class Backoff {
  private attempt = 0;
  private lastFailure = 0;

  constructor(
    private readonly options: BackoffOptions = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Delay before the next attempt after a failure. */
  next(): number {
    const now = this.now();
    if (this.lastFailure && now - this.lastFailure > (this.options.resetAfterMs ?? 120_000)) this.attempt = 0;
    this.lastFailure = now;
    const initial = this.options.initialMs ?? 800;
    const max = this.options.maxMs ?? 30_000;
    const base = Math.min(max, initial * (this.options.factor ?? 2) ** this.attempt);
    this.attempt++;
    const jitter = this.options.jitter ?? 0.5;
    return Math.min(max, base * (1 + Math.random() * jitter));
  }

  /** Forget past failures. */
  reset(): void {
    this.attempt = 0;
    this.lastFailure = 0;
  }
}

/** Resolves after `ms`, or early when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
