// Rewrites crd-baselines/ from the apps' CRDs: run when releasing (`npx projen crd-baselines`, or
// `npx tsx apps/write-crd-baselines.ts`) and commit the result with the release. The app's evolution option compares
// every later synth against these files and fails on breaking changes that are not acknowledged.
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { CrdBaselines } from '../lib';
import { defineCrds } from './crds';

const dir = path.join(__dirname, '..', 'crd-baselines');
const chart = new Chart(Testing.app(), 'baselines');
for (const file of new CrdBaselines(dir).write(defineCrds(chart))) {
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
