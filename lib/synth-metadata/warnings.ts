import { IConstruct } from 'constructs';

const WARNING_KEY = 'cdk8s-operator/warning';

/**
 * Synth-time warnings: problems the apiserver would accept but a user should hear about
 * (e.g. a CRD too big for client-side apply). `OperatorApp` prints them after synth.
 */
export class Warnings {
  /** Warnings attached to a construct. */
  public static of(scope: IConstruct): Warnings {
    return new Warnings(scope);
  }

  /** Every warning in the tree below `root`, each prefixed with its construct path. */
  public static collect(root: IConstruct): string[] {
    const found: string[] = [];
    for (const c of root.node.findAll()) {
      for (const entry of c.node.metadata) {
        if (entry.type === WARNING_KEY) found.push(`[${c.node.path}] ${entry.data}`);
      }
    }
    return found;
  }

  private constructor(private readonly scope: IConstruct) {}

  /** Adds a warning once (repeated identical warnings are dropped). */
  public add(message: string): void {
    const exists = this.scope.node.metadata.some((m) => m.type === WARNING_KEY && m.data === message);
    if (!exists) this.scope.node.addMetadata(WARNING_KEY, message);
  }
}
