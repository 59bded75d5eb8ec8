// Regenerates imports/<group>.ts from the apps' CRDs (`npx projen import`); `--check` only reports staleness.
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { generateTypes, staleImports, writeImports } from '../lib';
import { defineCrds } from './crds';

export async function generateAppImports() {
  const chart = new Chart(new App(), 'imports');
  const manifests = defineCrds(chart).map((crd) => crd.toManifest());
  return generateTypes(manifests, { libraryImport: '../lib', generatedBy: 'npx projen import' });
}

export const IMPORTS_DIR = path.join(__dirname, '..', 'imports');

if (require.main === module) {
  void generateAppImports().then((files) => {
    if (process.argv.includes('--check')) {
      const stale = staleImports(IMPORTS_DIR, files);
      if (stale.length) {
        console.error(`imports/ is stale (${stale.join(', ')}): run \`npx projen import\``);
        process.exit(1);
      }
      return;
    }
    writeImports(IMPORTS_DIR, files);
    console.log(files.map((f) => `imports/${f.path}`).join('\n'));
  });
}
