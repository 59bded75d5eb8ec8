/**
 * Reads the objects of manifest files, as synth writes them to `dist/`: one reader for what envtest applies
 * (`readManifests`), the CRDs it installs (`readCrds`) and the webhook configurations it points at a test's server.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** A manifest as synth writes it. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [key: string]: unknown;
}

/**
 * Every object in YAML or JSON files, or in the .yaml/.yml/.json files of folders (not recursive), in file order;
 * empty documents skipped. A document YAML cannot parse is an error naming its file.
 */
export function readManifests(paths: readonly string[]): Manifest[] {
  const out: Manifest[] = [];
  for (const p of paths) {
    const files = statSync(p).isDirectory()
      ? readdirSync(p)
          .filter((f) => /\.(ya?ml|json)$/.test(f))
          .sort()
          .map((f) => join(p, f))
      : [p];
    for (const file of files) {
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (doc.errors.length) throw new Error(`envtest: ${file}: ${doc.errors[0].message}`);
        const obj = doc.toJS() as Manifest | null;
        if (obj?.kind) out.push(obj);
      }
    }
  }
  return out;
}
