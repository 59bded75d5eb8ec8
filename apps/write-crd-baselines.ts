// Rewrites crd-baselines/ from the apps' CRDs: run when releasing (`npx projen crd-baselines`, or
// `npx tsx apps/write-crd-baselines.ts`) and commit the result with the release. The app's evolution option compares
// every later synth against these files and fails on breaking changes that are not acknowledged.
// `--stored-versions <crd>=<v>[,<v>...]` records what the storage migration left in status.storedVersions on every
// cluster (e.g. `--stored-versions sampledbs.database.example.com=v2`): only then may a release stop serving the others.
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { CrdBaselines } from '../lib';
import { defineCrds } from './crds';

const dir = path.join(__dirname, '..', 'crd-baselines');
const chart = new Chart(Testing.app(), 'baselines');
const storedVersions: Record<string, string[]> = {};
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const value =
    args[i] === '--stored-versions'
      ? args[++i]
      : args[i].startsWith('--stored-versions=')
        ? args[i].slice('--stored-versions='.length)
        : undefined;
  const m = value === undefined ? null : /^([a-z0-9.-]+)=([a-z0-9]+(,[a-z0-9]+)*)$/.exec(value);
  if (!m) {
    throw new Error(
      `usage: write-crd-baselines [--stored-versions <crd>=<version>[,<version>...]]..., got '${args[i]}'`,
    );
  }
  storedVersions[m[1]] = m[2].split(',');
}
for (const file of new CrdBaselines(dir).write(defineCrds(chart), { storedVersions })) {
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
