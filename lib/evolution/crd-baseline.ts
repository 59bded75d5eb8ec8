import * as fs from 'fs';
import * as path from 'path';
import { Yaml } from 'cdk8s';
import { CrdManifest } from '../apiserver/crd-manifest';
import { ICustomResourceDefinition } from '../crd/icustom-resource-definition';
import { loadKubectlYaml } from '../crd/kubectl-yaml';

/**
 * A folder of released CRD manifests, one `<metadata.name>.yaml` per CRD (e.g.
 * `crd-baselines/sampledbs.database.example.com.yaml`), committed with the code they were
 * released from. `OperatorAppProps.evolution` compares each CRD against its file.
 *
 * A baseline is written as `dist/` is (cdk8s' YAML 1.1 writer) and read as kubectl reads a manifest
 * (`loadKubectlYaml`), so the CRD compared is the one the released YAML installed.
 */
export class CrdBaselines {
  /** The folder, resolved against the working directory. */
  public readonly dir: string;

  constructor(dir: string) {
    if (!dir) throw new Error(`'dir' must name the baseline folder, got ${JSON.stringify(dir)}`);
    this.dir = path.resolve(dir);
  }

  /** The file of the CRD named `name` (`<plural>.<group>`). */
  public fileOf(name: string): string {
    return path.join(this.dir, `${name}.yaml`);
  }

  /** The baseline manifest of `name`, or undefined when there is none (a CRD not released yet). */
  public read(name: string): CrdManifest | undefined {
    const file = this.fileOf(name);
    if (!fs.existsSync(file)) return undefined;
    let docs: any[];
    try {
      docs = loadKubectlYaml(fs.readFileSync(file, 'utf8')).filter((d) => d != null);
    } catch (e) {
      throw new Error(`baseline '${file}' is not valid YAML: ${(e as Error).message}`);
    }
    if (docs.length !== 1 || docs[0].kind !== 'CustomResourceDefinition') {
      throw new Error(
        `baseline '${file}' must hold exactly one CustomResourceDefinition document, got ${docs.map((d) => d.kind).join(', ') || 'none'}`,
      );
    }
    if (docs[0].metadata?.name !== name) {
      throw new Error(`baseline '${file}' holds CRD '${docs[0].metadata?.name}', expected '${name}'`);
    }
    return docs[0];
  }

  /**
   * Writes the current manifest of each CRD as its new baseline (run when releasing).
   * Returns the files written.
   *
   * `storedVersions` records, per CRD name, what a storage migration left in `status.storedVersions` on every
   * cluster the release reached (e.g. `{ 'sampledbs.database.example.com': ['v2'] }` once every operator
   * reports the `StorageVersionMigrated` condition): only then may a later release stop serving or remove the
   * other versions. A CRD without a record keeps the one of its previous baseline, if any.
   */
  public write(
    crds: readonly ICustomResourceDefinition[],
    options: { readonly storedVersions?: Readonly<Record<string, readonly string[]>> } = {},
  ): string[] {
    fs.mkdirSync(this.dir, { recursive: true });
    return crds.map((crd) => {
      const manifest = crd.toManifest();
      const name = manifest.metadata.name;
      const file = this.fileOf(name);
      const stored = options.storedVersions?.[name] ?? this.read(name)?.status?.storedVersions;
      const versions = manifest.spec.versions.map((v) => v.name);
      const unknown = (stored ?? []).filter((v) => !versions.includes(v));
      if (unknown.length) {
        throw new Error(
          `baseline of ${name}: storedVersions ${JSON.stringify(unknown)} not in spec.versions (${versions.join(', ')})`,
        );
      }
      const header =
        '# Released CRD schema: the baseline the evolution check (OperatorApp option `evolution`) compares the CRD with. Rewrite only when releasing (npx projen crd-baselines).\n' +
        (stored
          ? '# status.storedVersions: what the storage migration left on every cluster, recorded when it finished everywhere.\n'
          : '');
      fs.writeFileSync(
        file,
        header + Yaml.stringify(stored ? { ...manifest, status: { storedVersions: [...stored] } } : manifest),
      );
      return file;
    });
  }
}
