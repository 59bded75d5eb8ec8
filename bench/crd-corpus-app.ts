// Child process of the CRD corpus benchmark: imports every CRD file given on the command line through
// CustomResourceDefinition.fromFile into one app (a chart each), then synthesizes it (every check runs, YAML
// is written to the output folder). Prints one JSON line with the phase timings in seconds.
import * as fs from 'fs';
import { App, Chart } from 'cdk8s';
import { CustomResourceDefinition } from '../lib/crd/custom-resource-definition';

const [outdir, ...files] = process.argv.slice(2);
const seconds = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e9;

const start = process.hrtime.bigint();
const app = new App({ outdir });
files.forEach((file, i) => CustomResourceDefinition.fromFile(new Chart(app, `crd${i}`), 'crd', file));
const imported = seconds(start);
const validateStart = process.hrtime.bigint();
for (const c of app.node.findAll()) {
  const errors = c.node.validate();
  if (errors.length > 0) throw new Error(`${c.node.path}: ${errors.join('\n')}`);
}
const validated = seconds(validateStart);
const synthStart = process.hrtime.bigint();
app.synth(); // validates again (cached per manifest) and writes the YAML
const synthesized = seconds(synthStart);
const bytes = files.reduce((n, f) => n + fs.statSync(f).size, 0);
console.log(JSON.stringify({ files: files.length, bytes, importSeconds: imported, validateSeconds: validated, synthSeconds: synthesized, totalSeconds: seconds(start) }));
