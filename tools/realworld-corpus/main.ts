/**
 * `npm run corpus:fetch`: the whole real-world CRD corpus (201 CRDs of 20 projects, 21 MB: too large to keep in the
 * repository) into `.cache/realworld-corpus`, where the corpus-wide suites find it (test/support/differential/corpus.ts).
 *
 *   npm run corpus:fetch                                   # from GitHub, at the commits SOURCES.tsv pins
 *   npm run corpus:fetch -- --base-url http://mirror:8080  # from a mirror in raw.githubusercontent.com's layout
 *   npm run corpus:fetch -- --from ../shared/corpus/realworld  # check and copy a corpus someone already has
 *   [--out DIR]                                            # another folder (then name it in REALWORLD_CORPUS_DIR)
 *
 * Every file is checked against its pinned SHA-256; files already there with that digest are not read again.
 * tools/realworld-corpus/serve-git.ts serves the raw layout from local clones, for machines without GitHub.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CorpusOrigin, fetchCorpus, GITHUB_RAW } from './fetch';
import { FETCHED_CORPUS, pinnedSources } from './sources';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'base-url': { type: 'string' }, from: { type: 'string' }, out: { type: 'string' } },
  });
  if (values.from && values['base-url']) throw new Error('--from and --base-url: give one origin, not both');
  const origin: CorpusOrigin = values.from
    ? { dir: resolve(values.from) }
    : { baseUrl: values['base-url'] ?? GITHUB_RAW };
  const out = resolve(values.out ?? FETCHED_CORPUS);
  const sources = pinnedSources();
  const started = Date.now();
  const { read, kept } = await fetchCorpus({ sources, out, origin });
  const from = 'dir' in origin ? origin.dir : origin.baseUrl;
  console.log(
    `${out}: ${sources.length} files checked against their pinned SHA-256 (${read} read from ${from}, ${kept} already there) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

if (require.main === module) {
  main().catch((e) => {
    // the report names every failed file; the stack only where DEBUG asks for it
    console.error(process.env.DEBUG ? e : `corpus:fetch: ${(e as Error).message}`);
    process.exit(1);
  });
}
