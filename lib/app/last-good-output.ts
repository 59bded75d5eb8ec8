import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/**
 * The last good output of a synth run by the cdk8s CLI, kept so that a failed `cdk8s synth` leaves it in place.
 *
 * `cdk8s synth` deletes its output folder before it starts the app (cdk8s-cli's synth command), so the app's
 * all-or-nothing write alone cannot keep the last good `dist/` there: by the time a synth fails, it is gone.
 * {@link OperatorApp} therefore copies each output it writes under the CLI (`CDK8S_OUTDIR` set) to a cache folder
 * (`node_modules/.cache/cdk8s-operator/last-good/`, or the temp folder without `node_modules`), and a failed synth
 * that finds its output folder missing puts that copy back before it reports.
 *
 * @internal
 */
export class LastGoodOutput {
  /** Whether the cdk8s CLI runs this app into `outdir` (and so emptied it before the app started). */
  public static underCdk8sCli(outdir: string): boolean {
    const cliOutdir = process.env.CDK8S_OUTDIR;
    return cliOutdir !== undefined && path.resolve(cliOutdir) === outdir;
  }

  private readonly copy: string;

  constructor(private readonly outdir: string) {
    const base = fs.existsSync(path.join(process.cwd(), 'node_modules'))
      ? path.join(process.cwd(), 'node_modules', '.cache')
      : os.tmpdir();
    const key = createHash('sha256').update(outdir).digest('hex').slice(0, 16);
    this.copy = path.join(base, 'cdk8s-operator', 'last-good', key);
  }

  /** Keeps a copy of the output just written (a new copy replaces the old one only once it is whole). */
  public remember(): void {
    const partial = `${this.copy}.partial-${process.pid}`;
    fs.rmSync(partial, { recursive: true, force: true });
    fs.cpSync(this.outdir, partial, { recursive: true });
    fs.rmSync(this.copy, { recursive: true, force: true });
    fs.renameSync(partial, this.copy);
  }

  /** Puts the last good output back when the output folder is missing; whether the folder now holds one. */
  public restoreIfMissing(): boolean {
    if (fs.existsSync(this.outdir)) return true;
    if (!fs.existsSync(this.copy)) return false;
    const partial = `${this.outdir}.restoring-${process.pid}`;
    fs.cpSync(this.copy, partial, { recursive: true });
    fs.renameSync(partial, this.outdir);
    return true;
  }
}
