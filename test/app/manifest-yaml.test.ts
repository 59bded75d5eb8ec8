import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Yaml } from 'cdk8s';
import { stringifyManifest, withFastManifestYaml } from '../../lib/app/manifest-yaml';
import { OperatorApp } from '../../lib/app/operator-app';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { loadKubectlYaml } from '../../lib/crd/kubectl-yaml';
import { REALWORLD_CORPUS, REALWORLD_SUBSET } from '../support/differential/corpus';

/** The whole real-world corpus where it sits beside the clone, and the repository's subset. */
const CORPORA = [REALWORLD_CORPUS, REALWORLD_SUBSET].filter((d): d is string => d !== undefined);

function corpus(): string[] {
  return CORPORA.flatMap((d) =>
    fs
      .readdirSync(d)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => path.join(d, f)),
  );
}

/** A deterministic generator of awkward strings: quotes, indicators, line breaks, YAML 1.1 look-alikes, unicode. */
function* awkwardStrings(count: number): Generator<string> {
  const parts = [
    'a',
    'B',
    '1',
    '0',
    ' ',
    '\n',
    '\t',
    ':',
    '#',
    '-',
    '?',
    "'",
    '"',
    '\\',
    '{',
    '}',
    '[',
    ']',
    ',',
    '&',
    '*',
    '!',
    '|',
    '>',
    '%',
    '@',
    '`',
    '.',
    'é',
    '\u2028',
    '~',
    'y',
    'n',
    'on',
    'yes',
    'Null',
    '0x',
    '0o',
    '1e3',
    '12:30',
    '2001-12-14',
    '---',
    '...',
    '+',
    '_',
    '\r',
    '\x07',
    '\u00a0',
    '\u{1F600}',
    '\ud800',
  ];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let n = 0; n < count; n++) {
    let s = '';
    for (let i = Math.floor(next() * 7); i > 0; i--) s += parts[Math.floor(next() * parts.length)];
    yield s;
  }
}

describe('stringifyManifest writes what cdk8s writes', () => {
  test.each(corpus().map((f) => [path.basename(f), f]))('%s', (_name, file) => {
    const [manifest] = loadKubectlYaml(fs.readFileSync(file, 'utf8'));
    expect(stringifyManifest(manifest)).toBe(Yaml.stringify(manifest));
  });

  test('awkward strings as keys, values and list items', () => {
    const mismatches: string[] = [];
    // each distinct string once: both writers are pure functions of the document, and the 30,000 drawn repeat
    // (short strings from 50 parts: about 2,600 distinct), so a repeat only repeated the same comparison
    const distinct = new Set(awkwardStrings(30_000));
    expect(distinct.size).toBeGreaterThan(2_500);
    for (const s of distinct) {
      const doc = { top: { [s]: s, list: [s, { [s]: [s, [s]] }], [`k${s}`]: { nested: s } }, [s]: null };
      if (stringifyManifest(doc) !== Yaml.stringify(doc)) mismatches.push(s);
    }
    expect(mismatches).toStrictEqual([]);
  });

  test('strings starting with any character (the writer skips the YAML 1.1 type tests by the first one)', () => {
    const mismatches: string[] = [];
    const tails = [
      '',
      'es',
      'ES',
      'o',
      'n',
      'ff',
      'ull',
      'rue',
      'alse',
      '1',
      '0',
      '.5',
      'e3',
      'x1F',
      'b1',
      ':30',
      '<',
      'nf',
      'inf',
      '.inf',
      'nan',
      'a b',
    ];
    for (let c = 0; c < 0x250; c++) {
      for (const tail of tails) {
        const s = String.fromCodePoint(c) + tail;
        const doc = { [s]: s, list: [s] };
        // `<<` is the one known difference: this writer quotes it, cdk8s writes it plain (a merge key to a YAML 1.1 reader)
        if (s !== '<<' && stringifyManifest(doc) !== Yaml.stringify(doc)) mismatches.push(s);
      }
    }
    expect(mismatches).toStrictEqual([]);
  });

  test('numbers, booleans, nulls, empty and nested collections, scalar documents', () => {
    const docs: unknown[] = [
      {
        a: [0, -1, 1.5, -2.25e-7, 1e21, 123456789012, Number.MAX_SAFE_INTEGER, -0, NaN, Infinity],
        b: [true, false, null, undefined],
      },
      { e: [], f: {}, g: [[], {}, [[]], [{}], [[1, [2]]]], h: { i: { j: {} } } },
      [],
      {},
      [{ a: 1 }, [{ b: 2 }]],
      'scalar',
      42,
      null,
    ];
    for (const doc of docs) expect(stringifyManifest(doc)).toBe(Yaml.stringify(doc));
  });
});

describe('withFastManifestYaml', () => {
  test('cdk8s synth writes the same files, and cdk8s gets its own writer back (also after a failure)', () => {
    const original = Yaml.stringify;
    const synth = (fast: boolean) => {
      const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-yaml-'));
      const app = new App({ outdir });
      for (const file of corpus().slice(0, 5)) {
        CustomResourceDefinition.fromFile(new Chart(app, path.basename(file, '.yaml')), 'crd', file);
      }
      if (fast) withFastManifestYaml(() => app.synth());
      else app.synth();
      const files = fs.readdirSync(outdir).sort();
      return Object.fromEntries(files.map((f) => [f, fs.readFileSync(path.join(outdir, f), 'utf8')]));
    };
    expect(synth(true)).toStrictEqual(synth(false));
    expect(Yaml.stringify).toBe(original);
    expect(() =>
      withFastManifestYaml(() => {
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(Yaml.stringify).toBe(original);
  });

  test('OperatorApp writes with it', () => {
    const seen: unknown[] = [];
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'manifest-yaml-app-'));
    const app = new OperatorApp({ outdir, report: false });
    new Chart(app, 'c').node.addValidation({
      validate: () => {
        seen.push(Yaml.stringify);
        return [];
      },
    });
    app.synth();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((writer) => writer === Yaml.stringify)).toStrictEqual([]);
  });
});
