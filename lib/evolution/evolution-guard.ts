import { IConstruct } from 'constructs';
import { compareCrdManifests } from './compare-crds';
import { CrdBaselines } from './crd-baseline';
import { CrdChange, CrdChangeKind, formatCrdChange } from './crd-change';
import { findCustomResourceDefinitions } from '../crd/custom-resource-definition';
import { Warnings } from '../synth-metadata/warnings';

/** A breaking change made on purpose, accepted with a reason. */
export interface AcknowledgedChange {
  /**
   * The change: its exact `id` (e.g. `'field-removed v1:.spec.legacy'`), or a RegExp tested
   * against the id (e.g. `/^field-removed v1:\.spec\.legacy(\.|$)/` for a whole subtree).
   */
  readonly change: string | RegExp;
  /** Why it is safe (e.g. "never released to users", "migrated in 0.4.0"). Shown in the synth report. */
  readonly reason: string;
  /**
   * Only for this CRD (`<plural>.<group>`).
   * @default - any guarded CRD
   */
  readonly crd?: string;
}

/** `OperatorAppProps.evolution`: compare every CRD of the app with its committed baseline. */
export interface EvolutionOptions {
  /** Folder of baseline manifests (`<plural>.<group>.yaml`), relative to the working directory, e.g. `crd-baselines`. */
  readonly baselineDir: string;
  /**
   * Breaking changes accepted on purpose; the rest fail synth.
   * @default []
   */
  readonly acknowledge?: readonly AcknowledgedChange[];
  /**
   * Fail synth for a CRD without a baseline file (instead of treating it as new).
   * @default false
   */
  readonly requireBaseline?: boolean;
}

/** A change as judged by the guard. */
export interface JudgedCrdChange extends CrdChange {
  /** The reason of the acknowledgement that accepted it, when one did. */
  readonly acknowledged?: string;
}

/** The evolution of one CRD against its baseline. */
export interface CrdEvolution {
  /** `<plural>.<group>`. */
  readonly crd: string;
  /** Construct path of the CRD. */
  readonly constructPath: string;
  /** The baseline file compared against. */
  readonly baselineFile: string;
  /** False for a CRD that has no baseline yet. */
  readonly hasBaseline: boolean;
  readonly changes: readonly JudgedCrdChange[];
}

/**
 * Safe CRD evolution: at synth every CRD of the app is compared against its committed baseline
 * (the last released manifest, see `CrdBaselines`), and breaking changes fail synth unless acknowledged
 * in code: removed fields or versions, tightened validation, new CEL rules, new required fields without
 * a default, type, scope, name and storage-version changes, a version dropped while it may still be stored.
 * Every change, breaking or not, is kept for the synth report. Created by `OperatorApp` from its
 * `evolution` option; holds the results of the last check.
 *
 * @internal
 */
export class EvolutionGuard {
  /** Problems with the options themselves (reported at synth with the others). */
  public readonly optionProblems: readonly string[];
  private readonly baselines: CrdBaselines;
  private readonly acks: readonly AcknowledgedChange[];
  private results = new Map<string, CrdEvolution>();

  constructor(private readonly options: EvolutionOptions) {
    this.baselines = new CrdBaselines(options.baselineDir);
    this.acks = options.acknowledge ?? [];
    const problems: string[] = [];
    this.acks.forEach((a, i) => {
      if (!a.reason?.trim()) {
        problems.push(
          `evolution.acknowledge[${i}].reason: must say why the change is safe, got ${JSON.stringify(a.reason)}`,
        );
      }
      if (typeof a.change === 'string' ? !a.change.trim() : !(a.change instanceof RegExp)) {
        problems.push(
          `evolution.acknowledge[${i}].change: must be a change id or a RegExp, got ${JSON.stringify(a.change)}`,
        );
      }
    });
    this.optionProblems = problems;
  }

  /** The evolution of every CRD, as of the last check. */
  public get evolution(): CrdEvolution[] {
    return [...this.results.values()];
  }

  /** Compares every CRD below `root` with its baseline; returns the errors, records warnings on `root`. */
  public check(root: IConstruct): string[] {
    const errors: string[] = [];
    const used = new Set<number>();
    const { baselines, acks } = this;
    this.results = new Map();
    for (const crd of findCustomResourceDefinitions(root)) {
      const current = crd.toManifest();
      const name = current.metadata.name;
      const at = `evolution: [${crd.node.path}] ${name}`;
      const baseline = baselines.read(name);
      if (!baseline) {
        this.results.set(crd.node.path, {
          crd: name,
          constructPath: crd.node.path,
          baselineFile: baselines.fileOf(name),
          hasBaseline: false,
          changes: [],
        });
        if (this.options.requireBaseline) {
          errors.push(
            `${at}: no baseline at ${baselines.fileOf(name)}; write it with CrdBaselines.write() when releasing`,
          );
        }
        continue;
      }
      const changes: JudgedCrdChange[] = compareCrdManifests(baseline, current).map((change) => {
        const i = change.breaking ? acks.findIndex((a) => matches(a, name, change)) : -1;
        if (i < 0) return change;
        used.add(i);
        return { ...change, acknowledged: acks[i].reason };
      });
      this.results.set(crd.node.path, {
        crd: name,
        constructPath: crd.node.path,
        baselineFile: baselines.fileOf(name),
        hasBaseline: true,
        changes,
      });
      for (const c of changes.filter((x) => x.breaking && !x.acknowledged)) {
        errors.push(
          `${at}: ${formatCrdChange(c)} (against ${baselines.fileOf(name)})${newVersionHint(c)}; if intended, acknowledge it: ` +
            `{ change: '${c.id}', reason: '…' }`,
        );
      }
    }
    acks.forEach((a, i) => {
      if (!used.has(i)) {
        Warnings.of(root).add(
          `evolution: acknowledge[${i}] (${String(a.change)}) matches no breaking change; remove it`,
        );
      }
    });
    return errors;
  }
}

/** Schema changes that break a served version's clients: they belong in a new version. */
const SCHEMA_BREAKING = new Set<CrdChangeKind>([
  CrdChangeKind.FIELD_REMOVED,
  CrdChangeKind.TYPE_CHANGED,
  CrdChangeKind.REQUIRED_ADDED,
  CrdChangeKind.VALIDATION_TIGHTENED,
  CrdChangeKind.RULE_ADDED,
  CrdChangeKind.MERGE_STRATEGY_CHANGED,
]);

function newVersionHint(c: CrdChange): string {
  if (!c.version || !SCHEMA_BREAKING.has(c.kind)) return '';
  return (
    `. ${c.version} is served: its clients and stored manifests still use the released schema. Keep ${c.version} as released and ` +
    `make the change in a new version (e.g. ${nextVersion(c.version)}) with a conversion between them (defineConversion in the runtime, ` +
    "served by the operator's webhook: contract.conversion), as its storage version; the operator then migrates stored objects"
  );
}

/** `v1` → `v2`, `v1beta1` → `v1beta2`. */
function nextVersion(version: string): string {
  const m = /^(.*?)(\d+)$/.exec(version);
  return m ? `${m[1]}${Number(m[2]) + 1}` : `${version}2`;
}

function matches(ack: AcknowledgedChange, crdName: string, change: CrdChange): boolean {
  if (ack.crd !== undefined && ack.crd !== crdName) return false;
  if (typeof ack.change === 'string') return ack.change === change.id;
  ack.change.lastIndex = 0; // a /g RegExp keeps state between calls
  return ack.change.test(change.id);
}
