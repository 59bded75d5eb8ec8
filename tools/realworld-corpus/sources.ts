/**
 * The pinned list of the real-world CRD corpus (test/fixtures/realworld-corpus/SOURCES.tsv) and the rule that turns
 * an upstream file into a corpus file.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The committed list: where each of the 201 files comes from, and the digest the fetched text must have. */
export const PINNED_SOURCES = join(__dirname, '..', '..', 'test', 'fixtures', 'realworld-corpus', 'SOURCES.tsv');

/** Where `npm run corpus:fetch` puts the corpus, and where the tests look when `REALWORLD_CORPUS_DIR` names none. */
export const FETCHED_CORPUS = join(__dirname, '..', '..', '.cache', 'realworld-corpus');

/** One corpus file and the upstream file it is cut from. */
export interface CorpusSource {
  /** `<project>__<CRD name>.yaml` */
  readonly file: string;
  /** `owner/name` on GitHub */
  readonly repo: string;
  /** the file's path in the repository */
  readonly path: string;
  /** the commit the file is read at (40 hex digits) */
  readonly commit: string;
  /** the corpus file's size in bytes */
  readonly size: number;
  /** the corpus file's SHA-256, hex */
  readonly sha256: string;
}

const COLUMNS = ['file', 'repo', 'path', 'commit', 'size_bytes', 'sha256'] as const;

/** Reads a list in the committed format; every malformed row is named in one error. */
export function parseSources(text: string, origin = PINNED_SOURCES): CorpusSource[] {
  const [header, ...rows] = text.split('\n').filter((line) => line.trim() !== '');
  if (header?.split('\t').join(',') !== COLUMNS.join(',')) {
    throw new Error(`${origin}: the header must be ${COLUMNS.join(' <tab> ')}`);
  }
  const problems: string[] = [];
  const out: CorpusSource[] = [];
  rows.forEach((row, i) => {
    const [file, repo, path, commit, size, sha256] = row.split('\t');
    const where = `${origin}:${i + 2}`;
    if (!/^[\w.-]+__[\w.-]+\.yaml$/.test(file ?? '')) {
      problems.push(`${where}: file '${file}' is not <project>__<CRD name>.yaml`);
    } else if (!/^[\w.-]+\/[\w.-]+$/.test(repo ?? '')) {
      problems.push(`${where}: repo '${repo}' is not owner/name`);
    } else if (!path || path.startsWith('/') || path.split('/').includes('..')) {
      problems.push(`${where}: path '${path}' is not inside the repository`);
    } else if (!/^[0-9a-f]{40}$/.test(commit ?? '')) {
      problems.push(`${where}: commit '${commit}' is not 40 hex digits`);
    } else if (!/^\d+$/.test(size ?? '')) {
      problems.push(`${where}: size_bytes '${size}' is not a number`);
    } else if (!/^[0-9a-f]{64}$/.test(sha256 ?? '')) {
      problems.push(`${where}: sha256 '${sha256}' is not 64 hex digits`);
    } else {
      out.push({ file, repo, path, commit, size: Number(size), sha256 });
    }
  });
  const files = rows.map((row) => row.split('\t')[0]);
  for (const dup of new Set(files.filter((f, i) => files.indexOf(f) !== i))) {
    problems.push(`${origin}: '${dup}' is listed twice`);
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return out;
}

/** The committed list. */
export function pinnedSources(): CorpusSource[] {
  return parseSources(readFileSync(PINNED_SOURCES, 'utf8'));
}

/** The list in its file format. */
export function renderSources(sources: readonly CorpusSource[]): string {
  const rows = sources.map((s) => [s.file, s.repo, s.path, s.commit, s.size, s.sha256].join('\t'));
  return [COLUMNS.join('\t'), ...rows].join('\n') + '\n';
}

/** The address of the upstream file in raw.githubusercontent.com's layout under `baseUrl`. */
export function rawUrl(baseUrl: string, source: CorpusSource): string {
  return `${baseUrl.replace(/\/+$/, '')}/${source.repo}/${source.commit}/${source.path}`;
}

export function sha256Of(text: Buffer | string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The corpus file of an upstream file: the YAML document that defines the CRD the file name names, cut at the `---`
 * lines around it (kubebuilder's files open with one; 130 of the 201 do). The text is kept byte for byte: no parsing
 * and rendering, so the digest can be checked.
 */
export function cutDocument(upstream: string, file: string): string {
  const crdName = file.slice(file.indexOf('__') + 2, -'.yaml'.length);
  const documents = upstream
    .split(/^---[ \t]*\r?\n/m)
    .filter((d) => d.split('\n').some((l) => l.trim() !== '' && !l.trim().startsWith('#')));
  if (documents.length === 1) return documents[0];
  const named = new RegExp(`^  name: ['"]?${crdName.replace(/\./g, '\\.')}['"]?\\s*$`, 'm');
  const matching = documents.filter((d) => /^kind: CustomResourceDefinition\s*$/m.test(d) && named.test(d));
  if (matching.length !== 1) {
    throw new Error(
      `${matching.length} of its ${documents.length} YAML documents define the CustomResourceDefinition ${crdName}`,
    );
  }
  return matching[0];
}
