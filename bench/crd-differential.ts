// Differential of CRD verdicts: single random mutations of every real-world CRD (test/support/differential/crd-mutations.ts),
// each created (dry run, strict field validation as kubectl apply sends it) on the real kube-apiserver of each oracle
// version and checked as synth checks a CRD for that version; a case agrees when both refuse or both accept.
// Writes bench/latest/crd-differential.json (or --out).
//   npx tsx bench/crd-differential.ts --seed 3 --per-crd 20 [--versions 1.28,1.32,1.36] [--out file]
import * as path from 'node:path';
import { arg } from './arg';
import { kubernetesAssetsDir } from './real-control-plane';
import { writeReport } from './write-report';
import { ControlPlane, ORACLE_VERSIONS, OracleVersion } from '../test/envtest';
import { loadCorpusCrds } from '../test/support/differential/corpus';
import { CrdDifferentialResult, runCrdDifferential } from '../test/support/differential/crd-run';

async function main(): Promise<void> {
  const seed = Number(arg('seed', '3'));
  const perCrd = Number(arg('per-crd', '20'));
  const versions = arg('versions', ORACLE_VERSIONS.join(',')).split(',') as OracleVersion[];
  const out = arg('out', path.join(__dirname, 'latest', 'crd-differential.json'));
  const crds = loadCorpusCrds();
  const results: CrdDifferentialResult[] = [];
  const started = Date.now();
  for (const version of versions) {
    const plane = await ControlPlane.start({ assetsDir: kubernetesAssetsDir(version), controllerManager: false });
    try {
      const r = await runCrdDifferential(plane, version, crds, { seed, perCrd });
      results.push(r);
      console.log(
        `v${version}: ${r.cases - r.disagreements.length}/${r.cases} agree; ${r.disagreements.length} disagreements; the apiserver panicked on ${r.panics.length}; our checks threw on ${r.crashes.length}`,
      );
    } finally {
      await plane.stop();
    }
  }
  writeReport(
    out,
    `npx tsx bench/crd-differential.ts --seed ${seed} --per-crd ${perCrd} --versions ${versions.join(',')}`,
    { seconds: Math.round((Date.now() - started) / 1000), results },
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
