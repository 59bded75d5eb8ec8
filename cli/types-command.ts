/**
 * `cdk8s-operator types <crd.yaml | crds.ts>... [--output imports] [--library cdk8s-operator] [--check]`:
 * TypeScript for one's own CRDs, one file per API group (`imports/<group>.ts`) — spec/status
 * interfaces of every version and a `cdk8s import`-style construct class per kind and version,
 * checked against its CRD at synth. The same generator this repository's `npx projen import` runs.
 */
import * as path from 'path';
import { generateTypes, staleImports, writeImports } from '../lib';
import { loadCrdManifests } from './crd-inputs';

/** Options of {@link typesCommand}. */
export interface TypesCommandOptions {
  readonly inputs: readonly string[];
  /** @default 'imports' */
  readonly output?: string;
  /** Module the generated classes import from. @default 'cdk8s-operator' */
  readonly library?: string;
  /** Only report whether the output is stale (exit code 1). @default false */
  readonly check?: boolean;
}

/** Runs the command; returns the process exit code. */
export async function typesCommand(options: TypesCommandOptions, log: (line: string) => void): Promise<number> {
  const output = options.output ?? 'imports';
  const files = await generateTypes(loadCrdManifests(options.inputs), {
    libraryImport: options.library,
    generatedBy: 'npx cdk8s-operator types',
  });
  if (options.check) {
    const stale = staleImports(output, files);
    if (stale.length) {
      log(`${output}/ is stale (${stale.join(', ')}): run \`npx cdk8s-operator types ${options.inputs.join(' ')}\``);
      return 1;
    }
    return 0;
  }
  writeImports(output, files);
  for (const f of files) log(path.join(output, f.path));
  return 0;
}
