// The real-world CRD corpus (../shared's and the vendored test/fixtures/realworld-crds) on each oracle apiserver: every CRD server-side applied (dry run, as dist/APPLY.md applies
// CRDs) on kube-apiserver 1.28, 1.32 and 1.36, and checked by synth's CRD checks targeting that version; the CRDs
// each refuses, why, and whether ours refuses the same. Writes bench/latest/realworld-crds.json (or --out), the source
// of docs/crds.md's and docs/API.md's "1.28 refuses N" figures (test/bench/realworld-crds.test.ts).
//   npx tsx bench/realworld-crds.ts [--versions 1.28,1.32,1.36] [--out file]
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'yaml';
import { arg } from './arg';
import { kubernetesAssetsDir } from './real-control-plane';
import { writeReport } from './write-report';
import { errorsOf } from '../lib/apimachinery/issue';
import { CrdManifest } from '../lib/apiserver/crd-manifest';
import { validateCrdManifest } from '../lib/apiserver/crd-validation/validate-crd';
import { checkCrdForVersions } from '../lib/apiserver/crd-validation/version-support';
import { ControlPlane, ORACLE_VERSIONS, OracleVersion } from '../test/envtest';
import { REALWORLD_CORPUS } from '../test/support/differential/corpus';

/** Why a CRD is refused, from the apiserver's message. */
function cause(message: string): string {
  if (/selectableFields: field not declared in schema/.test(message)) return 'selectableFields';
  if (/undeclared reference to 'format'/.test(message)) return 'format.*';
  if (/cost/.test(message)) return 'CEL cost estimate';
  return 'other';
}

async function main(): Promise<void> {
  if (!REALWORLD_CORPUS) {
    throw new Error('no real-world corpus: npm run corpus:fetch, or set REALWORLD_CORPUS_DIR');
  }
  const versions = arg('versions', ORACLE_VERSIONS.join(',')).split(',') as OracleVersion[];
  const out = arg('out', path.join(__dirname, 'latest', 'realworld-crds.json'));
  // as test/apiserver/realworld-corpus.test.ts: the whole corpus and the vendored files (larger ones among them)
  const byName = new Map<string, string>();
  for (const dir of [REALWORLD_CORPUS, path.join(__dirname, '../test/fixtures/realworld-crds')]) {
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.yaml'))) byName.set(f, path.join(dir, f));
  }
  const files = [...byName.keys()].sort();
  const results = [];
  for (const version of versions) {
    const plane = await ControlPlane.start({ assetsDir: kubernetesAssetsDir(version) });
    const refused: { file: string; cause: string; message: string; oursRefuses: boolean }[] = [];
    let agree = 0;
    try {
      for (const file of files) {
        const text = fs.readFileSync(byName.get(file)!, 'utf8');
        const manifest = yaml.parse(text) as CrdManifest;
        const ours = errorsOf([...validateCrdManifest(manifest), ...checkCrdForVersions(manifest, [version])]);
        const r = await plane.request(
          'PATCH',
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${manifest.metadata.name}?fieldManager=corpus&dryRun=All&fieldValidation=Strict`,
          text,
          { contentType: 'application/apply-patch+yaml', timeoutMs: 180_000 },
        );
        const theirs = r.code >= 300 ? String(r.body?.message) : undefined;
        if ((theirs !== undefined) === ours.length > 0) agree++;
        if (theirs !== undefined) {
          refused.push({ file, cause: cause(theirs), message: theirs.slice(0, 400), oursRefuses: ours.length > 0 });
        }
      }
    } finally {
      await plane.stop();
    }
    const byCause: Record<string, number> = {};
    for (const x of refused) byCause[x.cause] = (byCause[x.cause] ?? 0) + 1;
    console.log(
      `v${version}: ${refused.length}/${files.length} refused (${JSON.stringify(byCause)}); our verdict equal on ${agree}/${files.length}`,
    );
    results.push({
      kubernetesVersion: version,
      files: files.length,
      refused: refused.length,
      byCause,
      agree,
      refusedFiles: refused,
    });
  }
  writeReport(out, `npx tsx bench/realworld-crds.ts --versions ${versions.join(',')}`, { results });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
