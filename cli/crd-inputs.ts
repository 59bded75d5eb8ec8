/**
 * Where `cdk8s-operator types` finds CustomResourceDefinitions: YAML/JSON manifests (every document
 * of kind CustomResourceDefinition; e.g. a hand-written `crd.yaml` or synth output), or a
 * TypeScript/JavaScript module exporting `defineCrds(scope)` that defines them as constructs
 * (compiled on the fly with esbuild; its packages load from the module's own node_modules).
 */
import * as fs from 'fs';
import { createRequire } from 'module';
import * as path from 'path';
import * as yaml from 'yaml';
import { CrdManifest } from '../lib';
import { isCustomResourceDefinitionLike } from '../lib/crd/icustom-resource-definition';

/** The CRD manifests in each input file, in order. Throws naming the file and what is wrong. */
export function loadCrdManifests(files: readonly string[]): CrdManifest[] {
  if (files.length === 0) {
    throw new Error('types: name at least one input (a CRD YAML/JSON file, or a .ts/.js module exporting defineCrds)');
  }
  return files.flatMap((file) => {
    if (!fs.existsSync(file)) throw new Error(`types: ${file}: no such file`);
    return /\.(ya?ml|json)$/.test(file) ? manifestsInFile(file) : manifestsFromModule(file);
  });
}

function manifestsInFile(file: string): CrdManifest[] {
  const docs = yaml.parseAllDocuments(fs.readFileSync(file, 'utf8'));
  const errors = docs.flatMap((d) => d.errors.map((e) => e.message));
  if (errors.length) throw new Error(`types: ${file}: not valid YAML: ${errors.join('; ')}`);
  const crds = docs
    .map((d) => d.toJS())
    .filter((o) => o?.kind === 'CustomResourceDefinition' && o?.apiVersion === 'apiextensions.k8s.io/v1');
  if (crds.length === 0) throw new Error(`types: ${file}: holds no apiextensions.k8s.io/v1 CustomResourceDefinition`);
  return crds as CrdManifest[];
}

function manifestsFromModule(file: string): CrdManifest[] {
  const exports = loadModule(path.resolve(file));
  const defineCrds = exports.defineCrds;
  if (typeof defineCrds !== 'function') {
    throw new Error(
      `types: ${file}: must export a function defineCrds(scope) returning the CustomResourceDefinition constructs, exports are [${Object.keys(exports).join(', ')}]`,
    );
  }
  // The module's own cdk8s, so its constructs and this scope come from one copy of the library.
  const cdk8s = createRequire(path.resolve(file))('cdk8s') as typeof import('cdk8s');
  const chart = new cdk8s.Chart(new cdk8s.App(), 'types');
  const defined = (defineCrds as (scope: unknown) => unknown)(chart);
  const list = Array.isArray(defined) ? defined : [defined];
  return list.map((crd, i) => {
    if (!isCustomResourceDefinitionLike(crd)) {
      throw new Error(
        `types: ${file}: defineCrds() returned something that is not a CustomResourceDefinition at [${i}]`,
      );
    }
    return crd.toManifest();
  });
}

/**
 * Loads a .ts/.js module through Node's own `require`: esbuild compiles it (and its relative imports)
 * into one CommonJS file written beside it, so its packages resolve from the module's own
 * node_modules exactly as they would for the module itself; the file is removed right after.
 */
function loadModule(absolute: string): Record<string, unknown> {
  // esbuild is loaded only for this command (and `bundle`): synth never pays for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- see the line above
  const esbuild = require('esbuild') as typeof import('esbuild');
  const compiled = path.join(
    path.dirname(absolute),
    `.${path.basename(absolute)}.${process.pid}-${Date.now()}.cdk8s-operator-types.cjs`,
  );
  try {
    esbuild.buildSync({
      entryPoints: [absolute],
      outfile: compiled,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      sourcemap: 'inline',
      logLevel: 'silent',
    });
  } catch (e) {
    throw new Error(
      `types: ${absolute}: does not compile: ${(e as Error).message.replace(/^Build failed with \d+ errors?:\n/, '')}`,
    );
  }
  try {
    return createRequire(absolute)(compiled) as Record<string, unknown>;
  } finally {
    fs.rmSync(compiled, { force: true });
  }
}
