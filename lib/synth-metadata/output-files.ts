import { IConstruct } from 'constructs';

const OUTPUT_FILE_KEY = 'cdk8s-operator/output-file';

/**
 * Extra files a construct wants written next to the manifests (e.g. an RBAC report).
 * `OperatorApp` writes them after a successful synth.
 */
export class OutputFiles {
  public static of(scope: IConstruct): OutputFiles {
    return new OutputFiles(scope);
  }

  /** Every registered file in the tree below `root`; throws when two constructs claim one name. */
  public static collect(root: IConstruct): { fileName: string; produce: () => string }[] {
    const found = new Map<string, { fileName: string; produce: () => string; path: string }>();
    for (const c of root.node.findAll()) {
      for (const m of c.node.metadata) {
        if (m.type !== OUTPUT_FILE_KEY) continue;
        const prev = found.get(m.data.fileName);
        if (prev) {
          throw new Error(`output file '${m.data.fileName}' is claimed by both [${prev.path}] and [${c.node.path}]`);
        }
        found.set(m.data.fileName, { ...m.data, path: c.node.path });
      }
    }
    return [...found.values()].map(({ fileName, produce }) => ({ fileName, produce }));
  }

  private constructor(private readonly scope: IConstruct) {}

  /** Registers `fileName` (a plain name, no folders), rendered lazily at synth. */
  public add(fileName: string, produce: () => string): void {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(fileName) || /\.ya?ml$/.test(fileName)) {
      throw new Error(
        `fileName: must be a plain file name that is not YAML (kubectl would apply it), got '${fileName}'`,
      );
    }
    this.scope.node.addMetadata(OUTPUT_FILE_KEY, { fileName, produce });
  }
}
