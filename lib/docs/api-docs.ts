import * as fs from 'fs';
import * as path from 'path';
import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { renderCrdReference } from './crd-reference';
import { OperatorDiagramInput, renderOperatorPage } from './operator-diagram';
import { CrdManifest } from '../apiserver/crd-manifest';
import { CustomResourceDefinition, findCustomResourceDefinitions } from '../crd/custom-resource-definition';
import { Operator } from '../operator/operator';

/** One generated documentation page. */
export interface DocPage {
  /** Path relative to the docs folder, e.g. `sampledbs.database.example.com.md`. */
  readonly file: string;
  readonly title: string;
  readonly content: string;
}

/**
 * API reference generated from the same source as the manifests: one page per CRD
 * (`<plural>.<group>.md`), one per operator (`<name>.md`, with a Mermaid diagram and its RBAC),
 * and a `README.md` index. `OperatorApp` writes them to `<outdir>/docs/` when `docs` is on.
 */
export class ApiDocs {
  /** The pages for every CRD and operator below `root`, in tree order. */
  public static pages(root: IConstruct): DocPage[] {
    const crds = findCustomResourceDefinitions(root);
    const objects = root.node.findAll().filter(ApiObject.isApiObject);
    const crdPages = crds.map((crd) => {
      const manifest = documentedManifest(crd);
      const examples = objects
        .filter((o) => o.apiVersion.startsWith(`${crd.group}/`) && o.kind === crd.names.kind)
        .map((o) => o.toJson());
      return {
        file: `${manifest.metadata.name}.md`,
        title: `${manifest.spec.names.kind} (${manifest.spec.group})`,
        content: renderCrdReference(manifest, { examples }),
      };
    });
    const links = Object.fromEntries(crdPages.map((p) => [p.file.replace(/\.md$/, ''), p.file]));
    const operatorPages = root.node
      .findAll()
      .filter(Operator.isOperator)
      .map((op) => ({
        file: `${op.name}.md`,
        title: `Operator ${op.name}`,
        content: renderOperatorPage(operatorInput(op), links),
      }));
    const pages = [...crdPages, ...operatorPages];
    const files = new Set<string>();
    for (const p of pages) {
      if (files.has(p.file)) {
        throw new Error(`docs: two pages would be written to '${p.file}' (an operator named like a CRD?)`);
      }
      files.add(p.file);
    }
    if (pages.length === 0) return [];
    const index = [
      '# API reference',
      '',
      'Generated at synth from the same schema as the manifests.',
      '',
      ...pages.map((p) => `- [${p.title}](${p.file})`),
      '',
    ].join('\n');
    return [...pages, { file: 'README.md', title: 'API reference', content: index }];
  }

  /** Writes the pages into `dir` (created when needed); returns the files written. */
  public static write(root: IConstruct, dir: string): string[] {
    const pages = ApiDocs.pages(root);
    if (pages.length === 0) return [];
    fs.mkdirSync(dir, { recursive: true });
    return pages.map((p) => {
      const file = path.join(dir, p.file);
      fs.writeFileSync(file, p.content);
      return file;
    });
  }
}

/** The CRD manifest with every version's schema as declared (descriptions kept despite `stripDescriptions`). @internal */
export function documentedManifest(crd: CustomResourceDefinition): CrdManifest {
  const manifest = crd.toManifest();
  return {
    ...manifest,
    spec: {
      ...manifest.spec,
      versions: (manifest.spec.versions ?? []).map((v) => ({
        ...v,
        schema: { ...v.schema, openAPIV3Schema: crd.schemaFor(v.name) },
      })),
    },
  };
}

/** What the operator page needs, read from the construct. @internal */
export function operatorInput(op: Operator): OperatorDiagramInput {
  return {
    name: op.name,
    namespace: op.namespace,
    watchNamespaces: op.rbac.watchNamespaces,
    crds: op.rbac.contractRules.primaryKinds.map((k) => ({ kind: k.kind, group: k.group, plural: k.plural })),
    grants: op.rbac.grants,
  };
}
