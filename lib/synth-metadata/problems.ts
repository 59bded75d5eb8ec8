import { IConstruct } from 'constructs';

const PROBLEM_KEY = 'cdk8s-operator/problem';

/**
 * Mistakes found while a construct is built (a bad prop, a contract that cannot be granted), recorded
 * instead of thrown: synth then reports them together with every other construct's validation errors,
 * each once and under the construct they concern, instead of stopping at the first one.
 */
export class Problems {
  /** The problems recorded on a construct. */
  public static of(scope: IConstruct): Problems {
    return new Problems(scope);
  }

  private constructor(private readonly scope: IConstruct) {}

  /** Records a problem (repeated identical messages are kept once); synth fails with it. */
  public add(message: string): void {
    const recorded = this.messages();
    if (recorded.includes(message)) return;
    if (recorded.length === 0) this.scope.node.addValidation({ validate: () => this.messages() });
    this.scope.node.addMetadata(PROBLEM_KEY, message);
  }

  /**
   * Runs `build`; an error it throws is recorded here and `fallback` is returned, so construction
   * goes on and synth reports this problem with all the others.
   */
  public recordErrors<T>(build: () => T, fallback: T): T {
    try {
      return build();
    } catch (e) {
      this.add((e as Error).message);
      return fallback;
    }
  }

  private messages(): string[] {
    return this.scope.node.metadata.filter((m) => m.type === PROBLEM_KEY).map((m) => m.data as string);
  }
}
