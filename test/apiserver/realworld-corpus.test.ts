import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import * as yaml from 'yaml';
import { errorsOf, Issue } from '../../lib/apimachinery/issue';
import { CrdManifest } from '../../lib/apiserver/crd-manifest';
import { validateCrdManifest } from '../../lib/apiserver/crd-validation/validate-crd';
import { checkCrdForVersions } from '../../lib/apiserver/crd-validation/version-support';
import { CustomResourceDefinition } from '../../lib/crd/custom-resource-definition';
import { describeEachApiServerVersion, OracleVersion } from '../envtest';
import { REALWORLD_CORPUS, REALWORLD_SUBSET } from '../support/differential/corpus';

/**
 * Real CRDs of widely used operators, each accepted by kube-apiserver v1.32: the raw import path must pass
 * them with no error and emit them unchanged, and each of the apiservers of 1.28, 1.32 and 1.36 must give the
 * verdict our check gives for its version.
 * The vendored subset always runs; the whole corpus runs where `npm run corpus:fetch` put it (or `REALWORLD_CORPUS_DIR` names it).
 */

function corpus(): string[] {
  const byName = new Map<string, string>();
  for (const dir of [REALWORLD_CORPUS, REALWORLD_SUBSET]) {
    if (!dir) continue;
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.yaml'))) byName.set(f, path.join(dir, f));
  }
  return [...byName.values()].sort();
}

const FILES = corpus();

describe('real-world CRDs through CustomResourceDefinition.fromFile', () => {
  test('the corpus is there (vendored subset at least)', () => {
    expect(FILES.length).toBeGreaterThanOrEqual(7);
    if (REALWORLD_CORPUS) expect(FILES.length).toBeGreaterThanOrEqual(201);
  });

  test.each(FILES.map((f) => [path.basename(f), f]))('%s: no error, emitted unchanged', (_name, file) => {
    const chart = new Chart(new App({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'corpus-')) }), 'corpus');
    const crd = CustomResourceDefinition.fromFile(chart, 'crd', file);
    expect(crd.node.validate()).toStrictEqual([]);
    // parsed by another YAML library than fromFile's
    const written = yaml
      .parseAllDocuments(fs.readFileSync(file, 'utf8'))
      .map((d) => d.toJS())
      .filter((d) => d != null);
    expect(Testing.synth(chart)).toStrictEqual(written);
  });
});

/**
 * Each file's text and manifest, read and parsed once: the corpus is 21 MB of YAML, and the `yaml` library parses it
 * in seconds of CPU per pass (the suites below would otherwise parse it once per version and once more per figure).
 */
const parsed = new Map<string, { text: string; manifest: CrdManifest }>();
function read(file: string): { text: string; manifest: CrdManifest } {
  let entry = parsed.get(file);
  if (!entry) {
    const text = fs.readFileSync(file, 'utf8');
    entry = { text, manifest: yaml.parse(text) as CrdManifest };
    parsed.set(file, entry);
  }
  return entry;
}

/** Our verdict on a CRD for one Kubernetes version: every error of the synth check with the app targeting just that version. */
const verdicts = new Map<string, Issue[]>();
function ourErrors(file: string, version: OracleVersion): Issue[] {
  const key = `${version} ${file}`;
  let errors = verdicts.get(key);
  if (!errors) {
    const { manifest } = read(file);
    errors = errorsOf([...validateCrdManifest(manifest), ...checkCrdForVersions(manifest, [version])]);
    verdicts.set(key, errors);
  }
  return errors;
}

/**
 * Each version's own apiserver is the oracle for that version: server-side apply (as APPLY.md applies CRDs, so an
 * apiserver that does not know a field refuses it), dry run. 1.28 refuses 10 of the corpus (selectableFields, the
 * format library, and its higher CEL cost estimate); our check targeting 1.28 must refuse exactly those, and its
 * message must be the apiserver's, and 1.32 and 1.36 must accept all.
 */
describeEachApiServerVersion(
  'real-world CRDs on kube-apiserver',
  (plane, version) => {
    test.each(FILES.map((f) => [path.basename(f), f]))(
      "%s: the apiserver's verdict is ours for this version",
      async (_name, file) => {
        const { text, manifest } = read(file);
        const ours = ourErrors(file, version);
        const r = await plane().request(
          'PATCH',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${manifest.metadata.name}?fieldManager=corpus&dryRun=All&fieldValidation=Strict`,
          text,
          { contentType: 'application/apply-patch+yaml' },
        );
        const theirs: string | undefined = r.code >= 300 ? String(r.body?.message) : undefined;
        expect({
          apiserver: theirs === undefined ? 'accepted' : 'refused',
          ours: ours.length === 0 ? 'accepted' : 'refused',
        }).toStrictEqual({
          apiserver: ours.length === 0 ? 'accepted' : 'refused',
          ours: theirs === undefined ? 'accepted' : 'refused',
        });
        // where both refuse a CEL cost: the same figures (the factor has six decimals, so a cost off by one shows)
        for (const issue of ours.filter((i) => /cost/.test(i.message))) {
          expect(theirs).toContain(
            issue.message.replace(/^Forbidden: fails on Kubernetes [0-9., ]+, whose CEL cost estimate is higher: /, ''),
          );
        }
      },
      60_000,
    );
  },
  { shared: true },
);

/** The real-world CRDs each version refuses, by our check: the figures README states. */
describe('real-world CRDs refused per Kubernetes version, by our check', () => {
  test('1.28 refuses 10, 1.32 and 1.36 none', () => {
    const refused = (version: OracleVersion) =>
      FILES.filter((f) => ourErrors(f, version).length > 0).map((f) => path.basename(f));
    expect(refused('1.32')).toStrictEqual([]);
    expect(refused('1.36')).toStrictEqual([]);
    if (REALWORLD_CORPUS) expect(refused('1.28')).toHaveLength(10);
    expect(refused('1.28')).toEqual(
      expect.arrayContaining([
        'argo-workflows__workflowtemplates.argoproj.io.yaml',
        'external-secrets__pushsecrets.external-secrets.io.yaml',
      ]),
    );
  });
});
