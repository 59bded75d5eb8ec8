// Child process of the CRD corpus benchmark: imports every CRD file given on the command line through
// CustomResourceDefinition.fromFile, one OperatorApp per project (the corpus holds two channels of Gateway API, whose
// CRDs cannot share a cluster, nor an app), a chart per CRD, then synthesizes each app (every check runs, YAML
// is written to the output folder). Each app targets Kubernetes from the version CRD_CORPUS_MINIMUM_VERSIONS (JSON,
// project → version; crd-corpus-bench.ts) gives its project to 1.36: its CRDs checked against each version of that range.
// Prints one JSON line with the phase timings in seconds.
import * as fs from 'fs';
import * as path from 'path';
import { Chart } from 'cdk8s';
import { OperatorApp } from '../lib/app/operator-app';
import { CustomResourceDefinition } from '../lib/crd/custom-resource-definition';

const [outdir, ...files] = process.argv.slice(2);
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;
/** CPU seconds of this process (user + system) since `since`: robust when other work shares the machine. */
const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};
/** Corpus files are named `<project>__<plural>.<group>.yaml`. */
const projectOf = (file: string) => path.basename(file).split('__')[0];
const minimumVersions: Record<string, string> = JSON.parse(process.env.CRD_CORPUS_MINIMUM_VERSIONS ?? '{}');

const start = process.hrtime.bigint();
const cpuStart = process.cpuUsage();
const apps = new Map<string, OperatorApp>();
files.forEach((file, i) => {
  const project = projectOf(file);
  let app = apps.get(project);
  if (!app) {
    apps.set(
      project,
      (app = new OperatorApp({
        outdir: path.join(outdir, project),
        report: false,
        kubernetesVersions: { min: minimumVersions[project] },
      })),
    );
  }
  CustomResourceDefinition.fromFile(new Chart(app, `crd${i}`), 'crd', file);
});
const imported = seconds(start);
const validateStart = process.hrtime.bigint();
for (const app of apps.values()) {
  for (const c of app.node.findAll()) {
    const errors = c.node.validate();
    if (errors.length > 0) throw new Error(`${c.node.path}: ${errors.join('\n')}`);
  }
}
const validated = seconds(validateStart);
const validatedCpu = cpuSeconds(cpuStart);
const synthStart = process.hrtime.bigint();
for (const app of apps.values()) app.synth(); // validates again (cached per manifest) and writes the YAML
const synthesized = seconds(synthStart);
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
console.log(
  JSON.stringify({
    files: files.length,
    bytes,
    importSeconds: imported,
    validateSeconds: validated,
    synthSeconds: synthesized,
    totalSeconds: seconds(start),
    validationCpuSeconds: validatedCpu,
    totalCpuSeconds: cpuSeconds(cpuStart),
  }),
);
