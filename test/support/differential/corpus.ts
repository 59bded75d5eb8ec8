import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { CrdManifest, CrdVersionSpec } from '../../../lib/apiserver/crd-manifest';
import { FETCHED_CORPUS } from '../../../tools/realworld-corpus/sources';
import { seededRandom } from '../seeded-random';
import { applyAt, Mutation, mutationsOf, RULE_KINDS, RuleKind, Step, targetsOf } from './mutations';
import { Generator } from './valid-instance';

/**
 * The whole real-world corpus (201 CRDs of 20 projects, 21 MB: too large to keep here): where `REALWORLD_CORPUS_DIR`
 * names it, else where `npm run corpus:fetch` put it (.cache/realworld-corpus, each file checked against the pinned
 * SHA-256 of test/fixtures/realworld-corpus/SOURCES.tsv). No folder beside the clone is read unless named. A name that
 * holds no corpus is an error, not a skip.
 */
export const REALWORLD_CORPUS = namedCorpus(process.env.REALWORLD_CORPUS_DIR) ?? fetchedCorpus();

function namedCorpus(dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  if (!fs.existsSync(path.join(dir, 'SOURCES.tsv'))) {
    throw new Error(`REALWORLD_CORPUS_DIR=${dir} holds no real-world CRD corpus (no SOURCES.tsv there)`);
  }
  return path.resolve(dir);
}
function fetchedCorpus(): string | undefined {
  // the task writes SOURCES.tsv into the folder only once every file checked out
  return fs.existsSync(path.join(FETCHED_CORPUS, 'SOURCES.tsv')) ? FETCHED_CORPUS : undefined;
}
/** The part of the corpus kept in the repository (test/fixtures/realworld-crds/README.md says which files and why). */
export const REALWORLD_SUBSET = path.join(__dirname, '..', '..', 'fixtures', 'realworld-crds');
/** The whole corpus where there is one, else the subset: suites that sample it run either way. */
export const REALWORLD_CRDS = REALWORLD_CORPUS ?? REALWORLD_SUBSET;

/** One real-world CRD, renamed when another file defines the same name (Gateway API standard and experimental). */
export interface CorpusCrd {
  readonly file: string;
  readonly manifest: CrdManifest;
}

/** One custom resource of the corpus: a valid instance, or a single mutation of one. */
export interface CorpusCase {
  readonly id: string;
  readonly crd: CorpusCrd;
  readonly version: string;
  /** `valid`, or the rule kind the mutation aims at. */
  readonly kind: 'valid' | RuleKind;
  readonly note: string;
  readonly at: string;
  readonly object: Record<string, unknown>;
}

/**
 * Parsed corpus files by their text: a test file loads the corpus once per version and again in its checks, and
 * parsing is most of the cost (the parsed document is only read: every CRD returned is a fresh copy of it).
 */
const parsedByText = new Map<string, unknown>();
function parsedYaml(text: string): unknown {
  if (!parsedByText.has(text)) parsedByText.set(text, yaml.load(text));
  return parsedByText.get(text);
}

/**
 * The real-world CRDs, each with its conversion set to None (a dry-run create at a non-storage version would call
 * the webhook otherwise; validation happens before conversion), names made unique by prefixing the group, and
 * without their schemas' descriptions (most of their bytes, and no part of validation: installing is faster).
 */
export function loadCorpusCrds(dir = REALWORLD_CORPUS): CorpusCrd[] {
  if (!dir) {
    throw new Error('the real-world CRD corpus is not there: npm run corpus:fetch, or set REALWORLD_CORPUS_DIR');
  }
  const seen = new Set<string>();
  const out: CorpusCrd[] = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()) {
    const m = parsedYaml(fs.readFileSync(path.join(dir, file), 'utf8')) as any;
    let group: string = m.spec.group;
    for (let n = 1; seen.has(`${m.spec.names.plural}.${group}`); n++) group = `dup${n}.${m.spec.group}`;
    seen.add(`${m.spec.names.plural}.${group}`);
    const manifest = withoutDescriptions({
      ...m,
      metadata: { ...m.metadata, name: `${m.spec.names.plural}.${group}` },
      spec: { ...m.spec, group, conversion: { strategy: 'None' } },
    }) as CrdManifest;
    out.push({ file, manifest });
  }
  return out;
}

/** Options of a corpus: the seed, and how many valid instances per CRD version (each with its mutations). */
export interface CorpusOptions {
  readonly seed: number;
  readonly perCrd: number;
  /** At most this many mutations per rule kind per instance. @default 1 */
  readonly perKind?: number;
}

/** Served versions with a schema: what a user creates resources of. */
export function servedVersions(crd: CorpusCrd): CrdVersionSpec[] {
  return crd.manifest.spec.versions.filter((v) => v.served && v.schema?.openAPIV3Schema);
}

/** The corpus of one CRD: `perCrd` valid instances per served version, each with one mutation per applicable rule kind. */
export function casesFor(crd: CorpusCrd, options: CorpusOptions): CorpusCase[] {
  const out: CorpusCase[] = [];
  const { group, names } = crd.manifest.spec;
  for (const version of servedVersions(crd)) {
    const schema = version.schema!.openAPIV3Schema!;
    const rand = seededRandom(hash(`${options.seed}/${crd.file}/${version.name}`));
    const g = new Generator(rand, { optional: 0.6 });
    for (let i = 0; i < options.perCrd; i++) {
      const body = g.value(schema, 0, true) as Record<string, unknown>;
      const object = {
        apiVersion: `${group}/${version.name}`,
        kind: names.kind,
        metadata: { name: `c-${i}` },
        ...body,
      };
      const id = `${crd.file}@${version.name}#${i}`;
      out.push({
        id,
        crd,
        version: version.name,
        kind: 'valid',
        note: 'a valid instance (meant to be)',
        at: '',
        object,
      });
      const byKind = new Map<RuleKind, Mutation[]>();
      for (const t of targetsOf(schema, object)) {
        for (const m of mutationsOf(t, g)) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
      }
      for (const m of metadataMutations(g)) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
      for (const m of scaleMutations(version, g)) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m]);
      for (const kind of RULE_KINDS) {
        const ms = byKind.get(kind) ?? [];
        for (let k = 0; k < Math.min(options.perKind ?? 1, ms.length); k++) {
          const m = ms.splice(Math.floor(rand() * ms.length), 1)[0];
          out.push({
            id: `${id}/${kind}${k ? k : ''}`,
            crd,
            version: version.name,
            kind,
            note: m.note,
            at: showPath(m.at),
            object: applyAt(object, m.at, m.value) as Record<string, unknown>,
          });
        }
      }
    }
  }
  return out;
}

/** ObjectMeta as the apiserver checks it on every custom resource. */
function metadataMutations(g: Generator): Mutation[] {
  const m = (at: Step[], value: unknown, note: string): Mutation => ({
    kind: 'metadata',
    at: ['metadata', ...at],
    value,
    note,
  });
  return [
    m(['name'], g.pick(['Upper', 'a_b', 'a'.repeat(254), '-a', 'a.b', 'a'.repeat(253), '']), 'metadata.name edge'),
    m(
      [],
      g.pick([{ generateName: 'gen-' }, { generateName: 'Bad_' }, {}]),
      'generateName instead of a name, or neither',
    ),
    m(
      ['labels'],
      g.pick([
        { 'a/b': 'c' },
        { 'bad key': 'v' },
        { k: 'a'.repeat(64) },
        { k: 'a'.repeat(63) },
        { 'Example.com/x': 'y' },
        { k: 5 },
      ]),
      'label key or value edge',
    ),
    m(
      ['annotations'],
      g.pick([
        { 'a/b': 'x'.repeat(10) },
        { 'bad key': 'v' },
        { big: 'x'.repeat(262144) },
        { big: 'x'.repeat(262141) },
        { k: true },
      ]),
      'annotation key or size edge',
    ),
    m(
      ['finalizers'],
      g.pick([['example.com/f'], ['bad finalizer'], ['nofinalizerdomain'], ['a/b', 'a/b']]),
      'finalizers edge',
    ),
    m(['unknownMetaField'], 1, 'a field ObjectMeta does not have'),
  ];
}

/** The scale subresource's replicas paths: the apiserver checks them on create as int32 (spec) values. */
function scaleMutations(version: CrdVersionSpec, g: Generator): Mutation[] {
  const scale = version.subresources?.scale;
  if (!scale) return [];
  const steps = (p: string) => p.replace(/^\./, '').split('.');
  return [
    {
      kind: 'scale',
      at: steps(scale.specReplicasPath),
      value: g.pick([-1, 2147483648, 2147483647, 0, 1.5, '3']),
      note: `${scale.specReplicasPath} edge`,
    },
    {
      kind: 'scale',
      at: steps(scale.statusReplicasPath),
      value: g.pick([-1, 2147483648, 1.5]),
      note: `${scale.statusReplicasPath} edge`,
    },
  ];
}

/** A copy without the `description` of any schema node (properties named `description` stay). */
function withoutDescriptions(v: unknown, inProperties = false): unknown {
  if (Array.isArray(v)) return v.map((x) => withoutDescriptions(x));
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'description' && !inProperties && typeof x === 'string') continue;
    out[k] = withoutDescriptions(x, k === 'properties' && !inProperties);
  }
  return out;
}

export function showPath(at: readonly Step[]): string {
  return at.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}
