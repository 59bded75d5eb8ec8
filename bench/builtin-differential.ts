// Differential of built-in object verdicts: single random mutations of the built-in objects this repository's users
// synth (test/support/differential/builtin-seeds.ts, builtin-mutations.ts), each created (dry run, strict field
// validation as kubectl apply sends it) on the real kube-apiserver of each oracle version and checked as synth checks a
// built-in object for that version; a case agrees when both refuse or both accept.
// Writes bench/latest/builtin-differential.json (or --out).
//   npx tsx bench/builtin-differential.ts --seed 1 --per-object 40 [--versions 1.28,1.32,1.36] [--out file]
//   npx tsx bench/builtin-differential.ts --per-object sweep    (every place removed, emptied, made -1 and 0)
//   npx tsx bench/builtin-differential.ts --mutate additions --seed 1 --per-object 40    (fields the seeds lack, added;
//     bench/latest/builtin-differential-additions.json)
import * as path from 'node:path';
import { arg } from './arg';
import { kubernetesAssetsDir } from './real-control-plane';
import { writeReport } from './write-report';
import { ControlPlane, ORACLE_VERSIONS, OracleVersion } from '../test/envtest';
import {
  BuiltinDifferentialResult,
  BuiltinMutate,
  runBuiltinDifferential,
} from '../test/support/differential/builtin-run';
import { builtinSeeds } from '../test/support/differential/builtin-seeds';

async function main(): Promise<void> {
  const seed = Number(arg('seed', '1'));
  const perArg = arg('per-object', '40');
  const perObject = perArg === 'sweep' ? 'sweep' : Number(perArg);
  const mutate = arg('mutate', 'values') as BuiltinMutate;
  const versions = arg('versions', ORACLE_VERSIONS.join(',')).split(',') as OracleVersion[];
  const name = mutate === 'additions' ? 'builtin-differential-additions' : 'builtin-differential';
  const out = arg('out', path.join(__dirname, 'latest', `${name}.json`));
  const seeds = builtinSeeds();
  const results: BuiltinDifferentialResult[] = [];
  const started = Date.now();
  for (const version of versions) {
    const plane = await ControlPlane.start({ assetsDir: kubernetesAssetsDir(version), controllerManager: false });
    try {
      const r = await runBuiltinDifferential(plane, version, seeds, { seed, perObject, mutate });
      results.push(r);
      console.log(
        `v${version}: ${r.cases - r.disagreements.length - r.clusterDependent.length}/${r.cases} agree (${r.refused} refused by the apiserver, ${r.seeds} seeds, ${r.seedsLeftOut.length} left out); ${r.disagreements.length} disagreements, ${r.clusterDependent.length} refused for the cluster's configuration, ${r.fieldDisagreements.length} at other fields; our checks threw on ${r.crashes.length}`,
      );
    } finally {
      await plane.stop();
    }
  }
  writeReport(
    out,
    `npx tsx bench/builtin-differential.ts --mutate ${mutate} --seed ${seed} --per-object ${perObject} --versions ${versions.join(',')}`,
    { seconds: Math.round((Date.now() - started) / 1000), results },
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
