import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import RandExp from 'randexp';
import { goRegExp } from '../../lib/apiserver/schema/go-regexp';
import { validateValue } from '../../lib/apiserver/value-validation/value-validator';
import { describeEachApiServerVersion } from '../envtest';
import { REALWORLD_CORPUS, REALWORLD_CRDS } from '../support/differential/corpus';
import { seededRandom } from '../support/seeded-random';
import { apiserverRefuses, EDGE_CHARACTERS, installOracleCrd, OracleCase } from '../support/value-oracle';

/**
 * `pattern` with Go's regexp semantics, value by value against the real apiserver: every pattern of the real-world
 * CRD corpus, plus the constructs where Go (RE2) and JavaScript differ (`.`, `\s`, `$`, inline flags, POSIX and
 * Unicode classes, case folding), each with at least 100 strings: strings that match (drawn from the pattern), and
 * single mutations of them with the characters where the two dialects part ways, at the start, middle and end.
 */

/** Constructs the corpus may not use but users write, each where JavaScript's reading differs from Go's. */
const CONSTRUCTS = [
  '^.+$',
  '^a.c$',
  '(?s)^a.c$',
  '^\\s*$',
  '^\\S+$',
  '^\\w+$',
  '\\bab\\b',
  '^[[:alpha:]]+$',
  '^[[:^digit:]]+$',
  '^\\pL+$',
  '^\\p{Greek}+$',
  '^\\PL+$',
  '(?i)^kelvin$',
  '(?i)^s+$',
  '^ab$',
  '(?m)^ab$',
  '\\Aab\\z',
  '^a(?i)b$',
  '^a(?i:b)c$',
  '^\\x60\\x{1F600}?$',
  '^[\\d\\-]+$',
  '^\\Qa.b\\E$',
  '(?U)^a+?b$',
  '^[^a]$',
  '^.{2}$',
  '^é$',
  '^[\\x{80}-\\x{10FFFF}]+$',
  '^\\D+$',
  '^[^\\s]+$',
  '^$',
];

function corpusPatterns(): string[] {
  const dir = REALWORLD_CRDS;
  const found = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) return n.forEach(walk);
    if (n && typeof n === 'object') {
      const o = n as Record<string, unknown>;
      if (typeof o.pattern === 'string' && (o.type === 'string' || o.type === undefined)) found.add(o.pattern);
      Object.values(o).forEach(walk);
    }
  };
  for (const f of fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()) {
    for (const doc of yaml.loadAll(fs.readFileSync(path.join(dir, f), 'utf8'))) walk(doc);
  }
  return [...found];
}

const MIN_VALUES = 100;

/** Strings that match (drawn with randexp, kept when Go's regexp agrees) and single mutations of them. */
function valuesFor(pattern: string, seed: number): string[] {
  const random = seededRandom(seed);
  const seeds = new Set<string>([
    '',
    'a',
    'ab',
    'abc',
    'A',
    'kelvin',
    'KELVIN',
    'sss',
    'ab\n',
    'a\nc',
    'a\rc',
    'a\u2028c',
    'é',
    '\u{1F600}',
    'ὰβγ',
    '`',
    '`\u{1F600}',
    'a.b',
    'axb',
  ]);
  try {
    // randexp reads JavaScript syntax: Go's inline flags are left out for drawing only
    const gen = new RandExp(
      pattern
        .replace(/\(\?[imsU]+\)/g, '')
        .replace(/\(\?[imsU]+:/g, '(?:')
        .replace(/\\[Az]/g, ''),
    );
    gen.max = 4;
    gen.randInt = (a: number, b: number) => a + Math.floor(random() * (b - a + 1));
    for (let i = 0; i < 40; i++) seeds.add(gen.gen());
  } catch {
    // a pattern randexp cannot read: the fixed seeds and their mutations only
  }
  const matching = [...seeds].filter((s) => goRegExp(pattern).test(s)).slice(0, 12);
  const values = new Set<string>([...seeds].slice(0, 20));
  matching.forEach((s) => values.add(s));
  const bases = matching.length > 0 ? matching : [...seeds];
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  for (let guard = 0; values.size < MIN_VALUES + 20 && guard < 5000; guard++) {
    // mostly single mutations of a matching string; some of a mutated one, so short matches give enough values
    const s = random() < 0.8 ? pick(bases) : pick([...values]);
    const c = pick(EDGE_CHARACTERS);
    const at = pick([0, Math.floor(s.length / 2), s.length]);
    switch (Math.floor(random() * 4)) {
      case 0:
        values.add(s.slice(0, at) + c + s.slice(at));
        break;
      case 1:
        values.add(s.slice(0, at) + c + s.slice(at + 1));
        break;
      case 2:
        values.add(s.slice(0, at) + s.slice(at + 1));
        break;
      default:
        values.add(random() < 0.5 ? s.toUpperCase() + c : s + s);
        break;
    }
  }
  return [...values];
}

const patterns = [...corpusPatterns(), ...CONSTRUCTS];
const cases = patterns.map((pattern, i) => ({ field: `p${i}`, pattern, values: valuesFor(pattern, i + 1) }));
const GROUP = 'pattern.oracle.example.com';

describeEachApiServerVersion(
  'schema pattern with Go regexp semantics',
  (plane, version) => {
    beforeAll(async () => {
      await installOracleCrd(
        plane(),
        GROUP,
        cases.map((c): OracleCase => ({ field: c.field, items: { type: 'string', pattern: c.pattern } })),
      );
    }, 60_000);

    test('the corpus has patterns and every pattern gets at least 100 values, matching and not', () => {
      // the whole corpus beside the clone has well over 50 distinct patterns; the repository's subset has 26
      expect(corpusPatterns().length).toBeGreaterThan(REALWORLD_CORPUS ? 50 : 20);
      for (const c of cases) {
        expect(c.values.length).toBeGreaterThanOrEqual(MIN_VALUES);
        // both verdicts present, so a pattern's test can fail either way
        expect({
          pattern: c.pattern,
          verdicts: new Set(c.values.map((v) => goRegExp(c.pattern).test(v))).size,
        }).toStrictEqual({ pattern: c.pattern, verdicts: 2 });
      }
    });

    test.each(cases.map((c) => [c.pattern, c] as const))(
      '%s: refused exactly where the apiserver refuses',
      async (_p, c) => {
        const refused = await apiserverRefuses(plane(), GROUP, c.field, c.values);
        const schema = { type: 'string', pattern: c.pattern } as const;
        const verdicts = c.values.map((value, i) => ({
          value,
          apiserver: refused[i] ? 'refused' : 'accepted',
          ours: validateValue(schema, value, { resourceRoot: false, kubernetesVersion: version }).issues.some(
            (issue) => issue.severity !== 'warning',
          )
            ? 'refused'
            : 'accepted',
        }));
        expect(verdicts.filter((v) => v.apiserver !== v.ours)).toStrictEqual([]);
      },
      30_000,
    );
  },
  { shared: true },
);
