import * as fs from 'fs';
import * as path from 'path';
import { App, AppProps } from 'cdk8s';
import { OutputFiles, OutputLayout, writeApplyOrderLayout } from './output-layout';
import { Warnings } from './warnings';

/** Props of `OperatorApp`. */
export interface OperatorAppProps extends AppProps {
  /**
   * How manifests are split into files.
   * @default OutputLayout.PER_CHART
   */
  readonly layout?: OutputLayout;
}

/**
 * A cdk8s `App` whose synth is all-or-nothing: manifests are written to a staging folder
 * beside the output folder and moved into place only when every validation passed,
 * so a failed synth never leaves a partial `dist/`.
 */
export class OperatorApp extends App {
  /** Where the manifests end up. */
  public readonly finalOutdir: string;
  /** How manifests are split into files. */
  public readonly layout: OutputLayout;

  constructor(props: OperatorAppProps = {}) {
    const finalOutdir = path.resolve(props.outdir ?? process.env.CDK8S_OUTDIR ?? 'dist');
    const staging = path.join(path.dirname(finalOutdir), `.${path.basename(finalOutdir)}.staging-${process.pid}`);
    super({ ...props, outdir: staging });
    this.finalOutdir = finalOutdir;
    this.layout = props.layout ?? OutputLayout.PER_CHART;
  }

  public synth(): void {
    fs.rmSync(this.outdir, { recursive: true, force: true });
    try {
      super.synth();
      this.writeLayoutAndExtras();
    } catch (e) {
      fs.rmSync(this.outdir, { recursive: true, force: true });
      throw e;
    }
    fs.rmSync(this.finalOutdir, { recursive: true, force: true });
    fs.renameSync(this.outdir, this.finalOutdir);
    for (const w of Warnings.collect(this)) process.stderr.write(`warning: ${w}\n`);
  }

  private writeLayoutAndExtras(): void {
    if (this.layout === OutputLayout.APPLY_ORDER) {
      for (const f of fs.readdirSync(this.outdir)) fs.rmSync(path.join(this.outdir, f), { recursive: true, force: true });
      writeApplyOrderLayout(this.outdir, this.charts, path.basename(this.finalOutdir));
    }
    for (const f of OutputFiles.collect(this)) fs.writeFileSync(path.join(this.outdir, f.fileName), f.produce());
  }
}
