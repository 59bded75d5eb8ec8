/**
 * Sends a request again when its connection dropped or it timed out before any reply (up to `attempts` in all,
 * `pauseMs` apart). The differential's requests are dry runs, or CRD creates that count "already exists" as done, so
 * repeating one is harmless. The landing CI of 2026-11-30 lost the whole 1.28 run (2,668 cases) to one "socket hang
 * up" on a starved host. A reply, whatever its code, is never repeated; each repeat is told to `warn` (the CI log
 * says how often it happened), and the last failure names the request.
 */
export async function repeatIfDropped<T>(
  what: string,
  send: () => Promise<T>,
  {
    attempts = 3,
    pauseMs = 2_000,
    warn = console.warn,
  }: { readonly attempts?: number; readonly pauseMs?: number; readonly warn?: (line: string) => void } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (e) {
      if (attempt >= attempts) {
        throw new Error(`${what}: no reply in ${attempts} attempts: ${(e as Error).message}`);
      }
      warn(`${what}: no reply (${(e as Error).message}), sending it again (attempt ${attempt + 1} of ${attempts})`);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}
