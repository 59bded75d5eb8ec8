import * as fs from 'fs';
import * as path from 'path';
import { App, AppProps } from 'cdk8s';
import { Warnings } from './warnings';

/**
 * A cdk8s `App` whose synth is all-or-nothing: manifests are written to a staging folder
 * beside the output folder and moved into place only when every validation passed,
 * so a failed synth never leaves a partial `dist/`.
 */
export class OperatorApp extends App {
  /** Where the manifests end up. */
  public readonly finalOutdir: string;

  constructor(props: AppProps = {}) {
    const finalOutdir = path.resolve(props.outdir ?? process.env.CDK8S_OUTDIR ?? 'dist');
    const staging = path.join(path.dirname(finalOutdir), `.${path.basename(finalOutdir)}.staging-${process.pid}`);
    super({ ...props, outdir: staging });
    this.finalOutdir = finalOutdir;
  }

  public synth(): void {
    fs.rmSync(this.outdir, { recursive: true, force: true });
    try {
      super.synth();
    } catch (e) {
      fs.rmSync(this.outdir, { recursive: true, force: true });
      throw e;
    }
    fs.rmSync(this.finalOutdir, { recursive: true, force: true });
    fs.renameSync(this.outdir, this.finalOutdir);
    for (const w of Warnings.collect(this)) process.stderr.write(`warning: ${w}\n`);
  }
}
