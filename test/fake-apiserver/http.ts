/** Tiny fetch wrapper for tests that need exact HTTP (codes, headers, raw watch lines). */
export interface HttpReply {
  readonly code: number;
  readonly headers: Headers;
  readonly body: any;
}

export async function http(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpReply> {
  const h: Record<string, string> = { 'Accept': 'application/json', 'User-Agent': 'fake-apiserver-test/1.0', ...headers };
  if (body !== undefined && !h['Content-Type']) h['Content-Type'] = 'application/json';
  const resp = await fetch(base + path, { method, headers: h, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await resp.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // plain text (healthz)
  }
  return { code: resp.status, headers: resp.headers, body: parsed };
}

/** An open watch: collects parsed lines; `ended` resolves 'clean' on a proper end, 'aborted' on a dropped connection. */
export interface OpenWatch {
  readonly events: any[];
  readonly ended: Promise<'clean' | 'aborted'>;
  close(): void;
}

export async function openWatch(base: string, path: string): Promise<OpenWatch> {
  const ctrl = new AbortController();
  const resp = await fetch(base + path, { signal: ctrl.signal, headers: { 'User-Agent': 'fake-apiserver-test/1.0' } });
  if (resp.status !== 200) throw new Error(`watch answered ${resp.status}`);
  const events: any[] = [];
  const reader = resp.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  const ended = (async (): Promise<'clean' | 'aborted'> => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'clean';
        buf += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) events.push(JSON.parse(line));
        }
      }
    } catch {
      return 'aborted';
    }
  })();
  return { events, ended, close: () => ctrl.abort() };
}
