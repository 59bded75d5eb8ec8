// Differential corpus of custom resources: valid instances of every real-world CRD version plus single mutations
// aimed at every rule kind, each created (server-side dry run, strict field validation) on the real kube-apiserver of
// each oracle version and checked by our imitation (validateCustomResource for that version); verdicts and error
// field paths and messages (type, path, value, detail) compared word for word. Writes bench/latest/cr-differential.json (or --out).
//   npm run differential -- --seed 1 --per-crd 3 [--versions 1.28,1.32,1.36] [--out file]
import * as path from 'node:path';
import { arg } from './arg';
import { kubernetesAssetsDir } from './real-control-plane';
import { writeReport } from './write-report';
import { ControlPlane, ORACLE_VERSIONS, OracleVersion } from '../test/envtest';
import { loadCorpusCrds } from '../test/support/differential/corpus';
import { DifferentialResult, runDifferential } from '../test/support/differential/run';

async function main(): Promise<void> {
  const seed = Number(arg('seed', '1'));
  const perCrd = Number(arg('per-crd', '3'));
  const versions = arg('versions', ORACLE_VERSIONS.join(',')).split(',') as OracleVersion[];
  const out = arg('out', path.join(__dirname, 'latest', 'cr-differential.json'));
  const only = arg('only', '');
  const crds = loadCorpusCrds().filter((c) => !only || c.file.includes(only));
  const results: DifferentialResult[] = [];
  const started = Date.now();
  for (const version of versions) {
    const t0 = Date.now();
    const plane = await ControlPlane.start({ assetsDir: kubernetesAssetsDir(version) });
    try {
      const r = await runDifferential(plane, version, crds, { seed, perCrd });
      results.push(r);
      console.log(
        `v${version}: ${r.agree}/${r.cases} agree with every message word for word (${r.agreePaths} with the same verdict and error paths; ${r.disagreements.length} disagreements) over ${r.crdsInstalled}/${r.crds} CRDs, ${r.crdVersions} versions, ${((Date.now() - t0) / 1000).toFixed(0)} s`,
      );
    } finally {
      await plane.stop();
    }
  }
  writeReport(out, `npm run differential -- --seed ${seed} --per-crd ${perCrd} --versions ${versions.join(',')}`, {
    seconds: Math.round((Date.now() - started) / 1000),
    results,
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
