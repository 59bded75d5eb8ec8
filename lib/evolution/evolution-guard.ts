import { IConstruct } from 'constructs';
import { Warnings } from '../synth-metadata/warnings';
import { findCustomResourceDefinitions } from '../crd/custom-resource-definition';
import { compareCrdManifests } from './compare-crds';
import { CrdBaselines } from './crd-baseline';
import { CrdChange, formatCrdChange } from './crd-change';

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

/** Props of `EvolutionGuard.enable`. */
export interface EvolutionGuardProps {
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

const RESULTS = new WeakMap<IConstruct, Map<string, CrdEvolution>>();

/**
 * Safe CRD evolution: at synth every CRD below a scope is compared against its committed baseline
 * (the last released manifest, see `CrdBaselines`), and breaking changes fail synth unless acknowledged
 * in code: removed fields or versions, tightened validation, new CEL rules, new required fields without
 * a default, type, scope, name and storage-version changes, a version dropped while it may still be stored.
 * Every change, breaking or not, is listed in the synth report.
 *
 * @example
 * EvolutionGuard.enable(app, {
 *   baselineDir: 'crd-baselines',
 *   acknowledge: [{ change: 'field-removed v1:.spec.legacy', reason: 'unused since 0.3, announced in 0.4' }],
 * });
 */
export class EvolutionGuard {
  /** Guards every CRD below `scope` (the App, a Chart or a single CRD). */
  public static enable(scope: IConstruct, props: EvolutionGuardProps): void {
    const baselines = new CrdBaselines(props.baselineDir);
    const acks = props.acknowledge ?? [];
    acks.forEach((a, i) => {
      if (!a.reason?.trim()) throw new Error(`acknowledge[${i}].reason: must say why the change is safe, got ${JSON.stringify(a.reason)}`);
      if (typeof a.change === 'string' ? !a.change.trim() : !(a.change instanceof RegExp)) {
        throw new Error(`acknowledge[${i}].change: must be a change id or a RegExp, got ${JSON.stringify(a.change)}`);
      }
    });
    scope.node.addValidation({ validate: () => EvolutionGuard.check(scope, baselines, acks, props.requireBaseline ?? false) });
  }

  /** The evolution of every guarded CRD below `root`, as of the last validation. */
  public static collect(root: IConstruct): CrdEvolution[] {
    return [...(RESULTS.get(root.node.root)?.values() ?? [])];
  }

  private static check(scope: IConstruct, baselines: CrdBaselines, acks: readonly AcknowledgedChange[], requireBaseline: boolean): string[] {
    const errors: string[] = [];
    const used = new Set<number>();
    const results = RESULTS.get(scope.node.root) ?? new Map<string, CrdEvolution>();
    RESULTS.set(scope.node.root, results);
    for (const crd of findCustomResourceDefinitions(scope)) {
      const current = crd.toManifest();
      const name = current.metadata.name;
      const at = `evolution: [${crd.node.path}] ${name}`;
      const baseline = baselines.read(name);
      if (!baseline) {
        results.set(crd.node.path, { crd: name, constructPath: crd.node.path, baselineFile: baselines.fileOf(name), hasBaseline: false, changes: [] });
        if (requireBaseline) errors.push(`${at}: no baseline at ${baselines.fileOf(name)}; write it with CrdBaselines.write() when releasing`);
        continue;
      }
      const changes: JudgedCrdChange[] = compareCrdManifests(baseline, current).map(change => {
        const i = change.breaking ? acks.findIndex(a => matches(a, name, change)) : -1;
        if (i < 0) return change;
        used.add(i);
        return { ...change, acknowledged: acks[i].reason };
      });
      results.set(crd.node.path, { crd: name, constructPath: crd.node.path, baselineFile: baselines.fileOf(name), hasBaseline: true, changes });
      for (const c of changes.filter(x => x.breaking && !x.acknowledged)) {
        errors.push(`${at}: ${formatCrdChange(c)} (against ${baselines.fileOf(name)}); if intended, acknowledge it: `
          + `{ change: '${c.id}', reason: '…' }`);
      }
    }
    acks.forEach((a, i) => {
      if (!used.has(i)) Warnings.of(scope).add(`evolution: acknowledge[${i}] (${String(a.change)}) matches no breaking change; remove it`);
    });
    return errors;
  }
}

function matches(ack: AcknowledgedChange, crdName: string, change: CrdChange): boolean {
  if (ack.crd !== undefined && ack.crd !== crdName) return false;
  if (typeof ack.change === 'string') return ack.change === change.id;
  ack.change.lastIndex = 0; // a /g RegExp keeps state between calls
  return ack.change.test(change.id);
}
