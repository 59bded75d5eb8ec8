/**
 * Fills a folder with the real-world CRD corpus: each file of the pinned list read at its commit (from GitHub, a
 * mirror in raw.githubusercontent.com's layout, or a folder that already holds the corpus), cut to its CRD and
 * checked against its pinned size and SHA-256. The folder is replaced only when every file checks out: a failed run
 * leaves the last good corpus, and names every file that failed in one report.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CorpusSource, cutDocument, rawUrl, renderSources, sha256Of } from './sources';

export const GITHUB_RAW = 'https://raw.githubusercontent.com';

/** Where the files are read from. */
export type CorpusOrigin =
  /** upstream files at `<baseUrl>/<owner>/<name>/<commit>/<path>` (GitHub's raw host, or a mirror of it) */
  | { readonly baseUrl: string }
  /** a folder that holds the corpus files themselves (`../shared/corpus/realworld`, say): only checked and copied */
  | { readonly dir: string };

export interface FetchCorpusOptions {
  readonly sources: readonly CorpusSource[];
  /** the folder to fill */
  readonly out: string;
  readonly origin: CorpusOrigin;
  /** Requests in flight at once. @default 6 */
  readonly concurrency?: number;
  /** Tries per file when the network or the server fails (a 4xx is not retried). @default 3 */
  readonly attempts?: number;
  /** Per request. @default 60_000 */
  readonly timeoutMs?: number;
}

export interface FetchCorpusResult {
  /** files read from the origin */
  readonly read: number;
  /** files already in `out` with the pinned digest, kept without reading them again */
  readonly kept: number;
}

/** One file that could not be read, or did not match its pin. */
export interface CorpusProblem {
  readonly file: string;
  /** the URL or path it was read from */
  readonly from: string;
  readonly reason: string;
}

/** Every file that failed, in one report; files that failed for the same reason (a host not reached) share a line. */
export class CorpusFetchError extends Error {
  constructor(readonly problems: readonly CorpusProblem[]) {
    const byReason = new Map<string, CorpusProblem[]>();
    for (const p of problems) byReason.set(p.reason, [...(byReason.get(p.reason) ?? []), p]);
    const lines = [...byReason].flatMap(([reason, ps]) =>
      ps.length > 3
        ? [`${ps.length} files (${ps[0].from}, ...): ${reason}`]
        : ps.map((p) => `${p.file} (${p.from}): ${reason}`),
    );
    super(
      `${problems.length} corpus file(s) failed; the corpus folder is unchanged:\n${lines.map((l) => `  ${l}`).join('\n')}`,
    );
    this.name = 'CorpusFetchError';
  }
}

export async function fetchCorpus(options: FetchCorpusOptions): Promise<FetchCorpusResult> {
  const { sources, out, origin } = options;
  const staging = `${out}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const problems: CorpusProblem[] = [];
  let read = 0;
  let kept = 0;
  try {
    await inParallel(sources, options.concurrency ?? 6, async (source) => {
      const previous = join(out, source.file);
      if (existsSync(previous) && sha256Of(readFileSync(previous)) === source.sha256) {
        writeFileSync(join(staging, source.file), readFileSync(previous));
        kept++;
        return;
      }
      try {
        const text =
          'dir' in origin
            ? readGiven(join(origin.dir, source.file))
            : Buffer.from(cutDocument(await download(rawUrl(origin.baseUrl, source), options), source.file));
        const digest = sha256Of(text);
        if (digest !== source.sha256) {
          throw new Error(`sha256 ${digest} (${text.length} bytes), pinned ${source.sha256} (${source.size} bytes)`);
        }
        writeFileSync(join(staging, source.file), text);
        read++;
      } catch (e) {
        problems.push({ file: source.file, from: describeOrigin(origin, source), reason: (e as Error).message });
      }
    });
    if (problems.length > 0) throw new CorpusFetchError(problems.sort((a, b) => a.file.localeCompare(b.file)));
    writeFileSync(join(staging, 'SOURCES.tsv'), renderSources(sources));
    writeFileSync(join(staging, 'README.md'), README);
    replaceFolder(staging, out);
    return { read, kept };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function readGiven(file: string): Buffer {
  // ENOENT's message repeats the path, which the report already names
  if (!existsSync(file)) throw new Error('no such file');
  return readFileSync(file);
}

function describeOrigin(origin: CorpusOrigin, source: CorpusSource): string {
  return 'dir' in origin ? join(origin.dir, source.file) : rawUrl(origin.baseUrl, source);
}

async function download(url: string, options: FetchCorpusOptions): Promise<string> {
  const attempts = options.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    let retriable = true;
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? 60_000) });
      if (response.ok) return await response.text();
      // a missing file or commit will not appear on a second try; a busy or failing server may recover
      retriable = response.status >= 500 || response.status === 429;
      throw new Error(`HTTP ${response.status}`);
    } catch (e) {
      // a name that does not resolve (ENOTFOUND; a passing DNS failure is EAI_AGAIN) will not on the next try either
      if (!retriable || causeOf(e)?.code === 'ENOTFOUND' || attempt >= attempts) {
        throw new Error(`${reasonOf(e)}${attempt > 1 ? ` (after ${attempt} tries)` : ''}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** (attempt - 1)));
    }
  }
}

/** Node's fetch says only "fetch failed"; the cause says why (ENOTFOUND, ECONNREFUSED, ...). */
function reasonOf(e: unknown): string {
  const cause = causeOf(e);
  const message = (e as Error).message;
  return cause ? `${message}: ${cause.code ?? cause.message}` : message;
}

function causeOf(e: unknown): { code?: string; message?: string } | undefined {
  return (e as { cause?: { code?: string; message?: string } }).cause;
}

async function inParallel<T>(items: readonly T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await each(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, items.length)) }, worker));
}

/** Swaps the finished staging folder in; the old corpus is removed only once the new one is in place. */
function replaceFolder(staging: string, out: string): void {
  mkdirSync(dirname(out), { recursive: true });
  const old = `${out}.old-${process.pid}`;
  if (existsSync(out)) renameSync(out, old);
  renameSync(staging, out);
  rmSync(old, { recursive: true, force: true });
}

const README = `# Real-world CRDs (fetched)

Written by \`npm run corpus:fetch\` (tools/realworld-corpus): each file read at the commit \`SOURCES.tsv\` pins, cut
to its CustomResourceDefinition and checked against the pinned SHA-256. All are Apache-2.0 licensed by their projects
(test/fixtures/realworld-corpus/README.md). Do not edit: run the task again.
`;
