import * as fs from 'fs';
import * as path from 'path';
import { App, AppProps } from 'cdk8s';
import { HelmChartOptions, writeHelmLayout } from './helm-layout';
import { LastGoodOutput } from './last-good-output';
import { withFastManifestYaml } from './manifest-yaml';
import { OutputLayout, writeApplyOrderLayout } from './output-layout';
import { synthFailure } from './synth-failure';
import { ApiDocs } from '../docs/api-docs';
import { warnAboutMissingDescriptions } from '../docs/missing-descriptions';
import { CrdEvolution, EvolutionGuard, EvolutionOptions } from '../evolution/evolution-guard';
import { PolicyOptions, runPolicyChecks } from '../policy/policy-checks';
import { collectSynthReport, renderSynthReport, reportEnabled } from '../report/synth-report';
import { OutputFiles } from '../synth-metadata/output-files';
import { checkServedApis, objectKey } from '../synth-metadata/served-apis-check';
import { declareTargetVersions, KubernetesVersionRange } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/** Props of `OperatorApp`. */
export interface OperatorAppProps extends AppProps {
  /**
   * How manifests are split into files.
   * @default OutputLayout.PER_CHART
   */
  readonly layout?: OutputLayout;
  /**
   * Print the synth report (files, objects by kind, CRD sizes, API evolution, warnings) to stderr
   * after a successful synth. Off: only warnings are printed.
   * @default - true, unless the environment sets `CDK8S_OPERATOR_QUIET=1`
   */
  readonly report?: boolean;
  /**
   * Write the API reference into `<outdir>/docs/`: a page per CRD (`<plural>.<group>.md`), a page
   * per operator with a Mermaid diagram (`<name>.md`) and a `README.md` index.
   * @default false
   */
  readonly docs?: boolean;
  /**
   * The synth-time policy over every object of the app (Pod Security "restricted" and the RBAC lint by
   * default): errors fail synth, warnings are reported. `false` turns it off.
   * @default - the default checks
   */
  readonly policy?: PolicyOptions | false;
  /**
   * Compare every CRD with its committed baseline (`CrdBaselines`): breaking changes fail synth unless
   * acknowledged; every change is listed in the synth report.
   * @default - no comparison
   */
  readonly evolution?: EvolutionOptions;
  /**
   * Warn about schema fields without a `description` in CRDs built from props (`kubectl explain` and
   * the API reference would show nothing for them).
   * @default true
   */
  readonly descriptionCheck?: boolean;
  /**
   * The Kubernetes versions the app's manifests must install on. Synth checks every CRD against each version of
   * the range and names the versions a feature fails on (e.g. `selectableFields` or `quantity()` in a rule on 1.28,
   * a rule over 1.28's CEL cost budget), and every object's API version against the versions that serve it (e.g.
   * `admissionregistration.k8s.io/v1` ValidatingAdmissionPolicy from 1.30): an error naming the construct and the
   * versions, unless the construct is emitted only where served (its own `N-requires-1.30.yaml`, see APPLY.md).
   * @default - 1.28 to 1.37
   */
  readonly kubernetesVersions?: KubernetesVersionRange;
  /**
   * `Chart.yaml` of the Helm layout (`layout: OutputLayout.HELM`).
   * @default - name: the operator's, version 0.1.0, appVersion: the tag of its image
   */
  readonly helm?: HelmChartOptions;
}

/**
 * A cdk8s `App` whose synth is all-or-nothing: manifests are written to a staging folder
 * beside the output folder and moved into place only when every validation passed,
 * so a failed synth never leaves a partial `dist/`. The app-wide features (policy, evolution,
 * description check, report, docs) are configured here and nowhere else.
 */
export class OperatorApp extends App {
  /** Where the manifests end up. */
  public readonly finalOutdir: string;
  /** How manifests are split into files. */
  public readonly layout: OutputLayout;
  private readonly report: boolean;
  private readonly docs: boolean;
  private readonly helm?: HelmChartOptions;
  private readonly evolutionGuard?: EvolutionGuard;
  /** Set while synth() runs: the app-wide checks' result for this synth. */
  private synthChecks?: { result?: string[] };

  constructor(props: OperatorAppProps = {}) {
    const finalOutdir = path.resolve(props.outdir ?? process.env.CDK8S_OUTDIR ?? 'dist');
    const staging = path.join(path.dirname(finalOutdir), `.${path.basename(finalOutdir)}.staging-${process.pid}`);
    super({ ...props, outdir: staging });
    this.finalOutdir = finalOutdir;
    const versionProblems = declareTargetVersions(this, props.kubernetesVersions);
    this.layout = props.layout ?? OutputLayout.PER_CHART;
    this.report = reportEnabled(props.report);
    this.docs = props.docs ?? false;
    this.helm = props.helm;
    const policy = props.policy ?? {};
    const descriptionCheck = props.descriptionCheck ?? true;
    this.evolutionGuard = props.evolution ? new EvolutionGuard(props.evolution) : undefined;
    const appChecks = () => {
      if (descriptionCheck) warnAboutMissingDescriptions(this);
      return [
        ...versionProblems,
        ...checkServedApis(this, this.layout === OutputLayout.APPLY_ORDER).problems,
        ...(policy ? runPolicyChecks(this, policy) : []),
        ...(this.evolutionGuard ? [...this.evolutionGuard.optionProblems, ...this.evolutionGuard.check(this)] : []),
      ];
    };
    // cdk8s validates the whole app once per chart it writes: during one synth the app does not change, so the
    // app-wide checks (which serialize every object) run once, not once per chart
    this.node.addValidation({
      validate: () => (this.synthChecks ? (this.synthChecks.result ??= appChecks()) : appChecks()),
    });
  }

  /** What the `evolution` option found at the last synth: every CRD against its baseline (empty without the option). */
  public get evolutionResults(): readonly CrdEvolution[] {
    return this.evolutionGuard?.evolution ?? [];
  }

  public synth(): void {
    this.synthChecks = {};
    try {
      this.synthOnce();
    } finally {
      this.synthChecks = undefined;
    }
  }

  private synthOnce(): void {
    // the cdk8s CLI emptied the output folder before this run: a copy of the last good output stands in for it
    const lastGood = LastGoodOutput.underCdk8sCli(this.finalOutdir) ? new LastGoodOutput(this.finalOutdir) : undefined;
    fs.rmSync(this.outdir, { recursive: true, force: true });
    try {
      // cdk8s' YAML writer dominates the synth of large CRDs: the same bytes, written faster
      withFastManifestYaml(() => {
        super.synth();
        this.writeLayoutAndExtras();
      });
    } catch (e) {
      fs.rmSync(this.outdir, { recursive: true, force: true });
      const kept = lastGood ? lastGood.restoreIfMissing() : fs.existsSync(this.finalOutdir);
      throw synthFailure(e, path.relative(process.cwd(), this.finalOutdir) || '.', kept);
    }
    fs.rmSync(this.finalOutdir, { recursive: true, force: true });
    fs.renameSync(this.outdir, this.finalOutdir);
    lastGood?.remember();
    if (this.report) {
      const relative = path.relative(process.cwd(), this.finalOutdir);
      const shown =
        relative === '' ? '.' : relative.startsWith('..') || path.isAbsolute(relative) ? this.finalOutdir : relative;
      process.stderr.write(
        renderSynthReport(
          collectSynthReport(this, this.finalOutdir, { shownAs: shown, evolution: this.evolutionGuard?.evolution }),
        ),
      );
    } else {
      for (const w of Warnings.collect(this)) process.stderr.write(`warning: ${w}\n`);
    }
  }

  private writeLayoutAndExtras(): void {
    if (this.layout === OutputLayout.APPLY_ORDER) {
      for (const f of fs.readdirSync(this.outdir)) {
        fs.rmSync(path.join(this.outdir, f), { recursive: true, force: true });
      }
      const conditional = new Map(
        checkServedApis(this, true).conditional.map((o) => [
          objectKey({ apiVersion: o.apiVersion, kind: o.kind, metadata: o }),
          o.requires,
        ]),
      );
      writeApplyOrderLayout(this.outdir, this.charts, path.basename(this.finalOutdir), conditional);
    } else if (this.layout === OutputLayout.HELM) {
      for (const f of fs.readdirSync(this.outdir)) {
        fs.rmSync(path.join(this.outdir, f), { recursive: true, force: true });
      }
      writeHelmLayout(
        this.outdir,
        this.charts.flatMap((c) => Object.values(c.toJson())),
        this.helm,
      );
    }
    for (const f of OutputFiles.collect(this)) fs.writeFileSync(path.join(this.outdir, f.fileName), f.produce());
    if (this.docs) ApiDocs.write(this, path.join(this.outdir, 'docs'));
  }
}
