import * as fs from 'fs';
import * as path from 'path';
import { IConstruct } from 'constructs';
import * as yaml from 'yaml';
import { MutatingAdmissionPolicy } from '../admission-policy/mutating-admission-policy';
import { KUBERNETES_VERSIONS, KubernetesVersion } from '../apimachinery/kubernetes-versions';
import {
  lastAppliedAnnotationBytes,
  manifestBytes,
  MAX_ANNOTATION_BYTES,
  MAX_CRD_BYTES,
} from '../apiserver/crd-validation/crd-size';
import { findCustomResourceDefinitions } from '../crd/custom-resource-definition';
import { CrdEvolution } from '../evolution/evolution-guard';
import { minimumVersions } from '../synth-metadata/minimum-versions';
import { checkServedApis } from '../synth-metadata/served-apis-check';
import { targetVersions } from '../synth-metadata/target-versions';
import { Warnings } from '../synth-metadata/warnings';

/** One file written by synth. */
export interface ReportFile {
  /** Path relative to the output folder, with `/` separators. */
  readonly name: string;
  readonly bytes: number;
  /** Objects in a YAML file; undefined for other files. */
  readonly objects?: number;
}

/** Size of one CRD against the two budgets. */
export interface ReportCrdSize {
  /** `<plural>.<group>`. */
  readonly name: string;
  /** The manifest as JSON (etcd's budget: less than 1.5 MiB). */
  readonly bytes: number;
  /** Annotations after a client-side `kubectl apply` (budget: 262144 bytes). */
  readonly annotationBytes: number;
}

/** Everything the synth report shows. */
export interface SynthReport {
  /** The output folder as shown, e.g. `dist`. */
  readonly outdir: string;
  readonly files: readonly ReportFile[];
  /** `<apiVersion> <kind>` → count, e.g. `apps/v1 Deployment` → 1. */
  readonly kinds: Readonly<Record<string, number>>;
  readonly crds: readonly ReportCrdSize[];
  /** CRDs compared against baselines (`OperatorAppProps.evolution`). */
  readonly evolution: readonly CrdEvolution[];
  readonly warnings: readonly string[];
  /**
   * The Kubernetes versions every CRD was checked against (`OperatorAppProps.kubernetesVersions`).
   * @default - none shown (not an OperatorApp)
   */
  readonly kubernetesVersions?: readonly string[];
  /**
   * Objects emitted only where the cluster serves their API (`ValidatingAdmissionPolicy` `onUnservedVersions: 'skip'`):
   * `<apiVersion> <kind> <name>` and the version they need.
   * @default - none
   */
  readonly conditional?: ReadonlyArray<{ readonly object: string; readonly requires: string }>;
  /**
   * What each object needs beyond the oldest supported Kubernetes version (its API version, fields, CEL), by the
   * synth check of each supported version: the oldest version it installs on and why the one before does not.
   * @default - none (every object installs on every supported version)
   */
  readonly needs?: ReadonlyArray<{ readonly object: string; readonly requires: string; readonly why: string }>;
  /**
   * What each MutatingAdmissionPolicy does on create to the app's custom resources it matches (its preview): the
   * policy's name, the object, and the changes (or why the outcome depends on the cluster).
   * @default - none (no mutating policy matches an object of the app)
   */
  readonly mutationPreviews?: ReadonlyArray<{
    readonly policy: string;
    readonly object: string;
    readonly changes: readonly string[];
    readonly undecided?: string;
    readonly assumes?: string;
  }>;
}

/** Options of `collectSynthReport`. */
export interface SynthReportOptions {
  /**
   * The output folder as the report shows it.
   * @default - the folder's base name
   */
  readonly shownAs?: string;
  /**
   * The CRD evolution to show (`OperatorApp` passes what its `evolution` option found).
   * @default - no evolution section
   */
  readonly evolution?: readonly CrdEvolution[];
}

/**
 * Gathers the report of a finished synth: the files in `outdir` (read back, so it shows what was
 * really written), objects by kind, CRD sizes, API evolution and warnings of the tree below `root`.
 */
export function collectSynthReport(root: IConstruct, outdir: string, options: SynthReportOptions = {}): SynthReport {
  const files: ReportFile[] = [];
  const kinds: Record<string, number> = {};
  for (const name of listFiles(outdir)) {
    const full = path.join(outdir, name);
    const bytes = fs.statSync(full).size;
    if (!/\.ya?ml$/.test(name)) {
      files.push({ name, bytes });
      continue;
    }
    const objects = topLevelKinds(fs.readFileSync(full, 'utf8'));
    for (const o of objects) {
      const key = `${o.apiVersion} ${o.kind}`;
      kinds[key] = (kinds[key] ?? 0) + 1;
    }
    // Chart.yaml, values.yaml and other YAML that holds no Kubernetes object show no count
    files.push({ name, bytes, ...(objects.length ? { objects: objects.length } : {}) });
  }
  const crds = findCustomResourceDefinitions(root).map((crd) => {
    const manifest = crd.toManifest();
    return {
      name: manifest.metadata.name,
      bytes: manifestBytes(manifest),
      annotationBytes: lastAppliedAnnotationBytes(manifest),
    };
  });
  const kubernetesVersions = targetVersions(root);
  const conditional = checkServedApis(root, true).conditional.map((o) => ({
    object: `${o.apiVersion} ${o.kind} ${o.name}`,
    requires: o.requires,
  }));
  // (objects emitted only where served are listed as conditional already)
  // a minimum at or below the range's start is no news: every version the app targets has it
  const above = (v: string) =>
    kubernetesVersions !== undefined &&
    KUBERNETES_VERSIONS.indexOf(v as KubernetesVersion) > KUBERNETES_VERSIONS.indexOf(kubernetesVersions[0]);
  const needs = kubernetesVersions
    ? minimumVersions(root)
        .filter((n) => above(n.requires) && !conditional.some((c) => c.object === n.object))
        .map((n) => ({ object: n.object, requires: n.requires, why: n.why }))
    : [];
  const mutationPreviews = root.node
    .findAll()
    .filter((c): c is MutatingAdmissionPolicy => c instanceof MutatingAdmissionPolicy)
    .flatMap((policy) =>
      policy.preview().map((p) => ({
        policy: policy.name,
        object: p.object,
        changes: p.changes,
        ...(p.undecided ? { undecided: p.undecided } : {}),
        ...(p.assumes ? { assumes: p.assumes } : {}),
      })),
    );
  return {
    ...(conditional.length > 0 ? { conditional } : {}),
    ...(mutationPreviews.length > 0 ? { mutationPreviews } : {}),
    ...(needs.length > 0 ? { needs } : {}),
    outdir: options.shownAs ?? path.basename(outdir),
    files,
    kinds,
    crds,
    evolution: options.evolution ?? [],
    warnings: Warnings.collect(root),
    ...(kubernetesVersions ? { kubernetesVersions } : {}),
  };
}

/**
 * apiVersion and kind of each Kubernetes object of a YAML stream (documents with both), read from the top-level lines
 * only: a full parse of a large output (10 MiB for 100 CRDs) would double the synth time.
 *
 * @internal
 */
export function topLevelKinds(text: string): Array<{ apiVersion: unknown; kind: unknown }> {
  const scalar = (doc: string, key: string) => {
    const m = new RegExp(`^${key}:[ \\t]*(.*)$`, 'm').exec(doc);
    return m ? yaml.parse(m[1]) : undefined;
  };
  return text
    .split(/^---[ \t]*$/m)
    .filter((doc) => /^[A-Za-z]/m.test(doc))
    .map((doc) => ({ apiVersion: scalar(doc, 'apiVersion'), kind: scalar(doc, 'kind') }))
    .filter((o) => typeof o.apiVersion === 'string' && typeof o.kind === 'string');
}

/** The report as plain text, one section per concern. */
export function renderSynthReport(report: SynthReport): string {
  const lines: string[] = [`Synth report: ${report.outdir}/`, ''];
  const versions = report.kubernetesVersions ?? [];
  if (versions.length > 0) {
    lines.push(
      `Kubernetes versions: ${versions[0]} to ${versions[versions.length - 1]} (every CRD, object, field and policy checked against each; docs/API.md lists each feature's minimum)`,
    );
    for (const c of report.conditional ?? []) {
      lines.push(
        `  conditional: ${c.object} needs ${c.requires} or newer: in its own file, applied only where served (APPLY.md)`,
      );
    }
    for (const n of report.needs ?? []) {
      lines.push(`  needs ${n.requires}+: ${n.object} (${n.why.length > 160 ? `${n.why.slice(0, 157)}...` : n.why})`);
    }
    lines.push('');
  }
  const objects = report.files.reduce((n, f) => n + (f.objects ?? 0), 0);
  lines.push(`Files (${report.files.length}, ${objects} objects):`);
  const width = Math.max(0, ...report.files.map((f) => f.name.length));
  for (const f of report.files) {
    lines.push(
      `  ${f.name.padEnd(width)}  ${humanBytes(f.bytes).padStart(9)}${f.objects === undefined ? '' : `  ${f.objects} object${f.objects === 1 ? '' : 's'}`}`,
    );
  }

  const kinds = Object.entries(report.kinds).sort(([a], [b]) => a.localeCompare(b));
  if (kinds.length > 0) {
    lines.push('', 'Objects by kind:');
    const kw = Math.max(...kinds.map(([k]) => k.length));
    for (const [k, n] of kinds) lines.push(`  ${k.padEnd(kw)}  ${n}`);
  }

  if (report.crds.length > 0) {
    lines.push(
      '',
      `CRD sizes (client-side apply annotation budget ${MAX_ANNOTATION_BYTES} bytes; etcd limit ${MAX_CRD_BYTES} bytes = 1.5 MiB):`,
    );
    const cw = Math.max(...report.crds.map((c) => c.name.length));
    for (const c of report.crds) {
      lines.push(
        `  ${c.name.padEnd(cw)}  ${c.bytes} bytes, ${percent(c.annotationBytes, MAX_ANNOTATION_BYTES)} of the annotation budget, ` +
          `${percent(c.bytes, MAX_CRD_BYTES)} of 1.5 MiB — ${sizeVerdict(c)}`,
      );
    }
  }

  if (report.evolution.length > 0) {
    lines.push('', 'API evolution (against the committed baselines):');
    for (const e of report.evolution) {
      if (!e.hasBaseline) {
        lines.push(`  ${e.crd}: new, no baseline yet (${e.baselineFile})`);
        continue;
      }
      if (e.changes.length === 0) {
        lines.push(`  ${e.crd}: unchanged`);
        continue;
      }
      const breaking = e.changes.filter((c) => c.breaking).length;
      lines.push(
        `  ${e.crd}: ${e.changes.length} change${e.changes.length === 1 ? '' : 's'}${breaking ? `, ${breaking} breaking (acknowledged)` : ''}`,
      );
      for (const c of e.changes) {
        const mark = c.breaking ? 'BREAKING ' : '';
        lines.push(`    ${mark}${c.id}: ${c.message}${c.acknowledged ? ` — acknowledged: ${c.acknowledged}` : ''}`);
      }
    }
  }

  if ((report.mutationPreviews ?? []).length > 0) {
    lines.push(
      '',
      'Mutating admission policies, previewed on the example objects (what the apiserver stores on create):',
    );
    for (const p of report.mutationPreviews ?? []) {
      const what = p.undecided
        ? `not previewed: ${p.undecided}`
        : p.changes.length === 0
          ? 'no change'
          : `${p.changes.length} change${p.changes.length === 1 ? '' : 's'}`;
      lines.push(`  ${p.policy} on ${p.object}: ${what}${p.assumes ? ` (assuming ${p.assumes})` : ''}`);
      for (const c of p.changes) lines.push(`    ${c}`);
    }
  }

  lines.push('', report.warnings.length === 0 ? 'Warnings: none' : `Warnings (${report.warnings.length}):`);
  for (const w of report.warnings) lines.push(`  warning: ${w}`);
  return lines.join('\n') + '\n';
}

/** Whether the report is printed: on unless turned off by the option or `CDK8S_OPERATOR_QUIET=1`. @internal */
export function reportEnabled(
  option: boolean | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): boolean {
  if (option !== undefined) return option;
  const quiet = (env.CDK8S_OPERATOR_QUIET ?? '').toLowerCase();
  return !(quiet === '1' || quiet === 'true' || quiet === 'yes');
}

function sizeVerdict(c: ReportCrdSize): string {
  if (c.bytes >= MAX_CRD_BYTES) return 'TOO BIG for etcd';
  if (c.annotationBytes > MAX_ANNOTATION_BYTES) return 'too big for client-side apply: use kubectl apply --server-side';
  return 'ok';
}

function percent(n: number, of: number): string {
  const p = (100 * n) / of;
  return `${p < 10 ? p.toFixed(1) : Math.round(p)}%`;
}

function humanBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Files below `dir`, relative, sorted, with `/` separators. */
function listFiles(dir: string, prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...listFiles(path.join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out;
}
