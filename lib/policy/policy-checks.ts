import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { Warnings } from '../synth-metadata/warnings';
import { errorsOf, formatIssue, Issue, warningsOf } from '../apimachinery/issue';
import { checkPodSecurityRestricted } from './pod-security-restricted';
import { lintRbac } from './rbac-lint';

/** A check over manifests, e.g. `checkPodSecurityRestricted` or `lintRbac`. */
export type ManifestCheck = (manifests: readonly unknown[]) => Issue[];

/** The checks `PolicyChecks.enable` runs by default. @internal */
export const DEFAULT_POLICY_CHECKS: readonly ManifestCheck[] = [checkPodSecurityRestricted, lintRbac];

const ENABLED = new WeakSet<IConstruct>();

/**
 * Synth-time policy over our own output: at validation time every `ApiObject` below the root of
 * `scope` (the App) is rendered and checked. Errors fail synth, naming the object's construct path,
 * kind/name, field and bad value; warnings go to `Warnings` (printed by `OperatorApp`).
 */
export class PolicyChecks {
  /** Enables the checks once on the root of `scope`'s tree (repeated calls are no-ops). */
  public static enable(scope: IConstruct, checks: readonly ManifestCheck[] = DEFAULT_POLICY_CHECKS): void {
    const root = scope.node.root;
    if (ENABLED.has(root)) return;
    ENABLED.add(root);
    root.node.addValidation({ validate: () => PolicyChecks.run(root, checks) });
  }

  /** Runs `checks` over every ApiObject below `root`; returns error messages, records warnings. */
  public static run(root: IConstruct, checks: readonly ManifestCheck[] = DEFAULT_POLICY_CHECKS): string[] {
    const errors: string[] = [];
    for (const obj of root.node.findAll().filter(ApiObject.isApiObject)) {
      const manifest = obj.toJson();
      const issues = checks.flatMap(check => check([manifest]));
      for (const e of errorsOf(issues)) errors.push(`policy: [${obj.node.path}] ${formatIssue(e)}`);
      for (const w of warningsOf(issues)) Warnings.of(obj).add(`policy: ${formatIssue(w)}`);
    }
    return errors;
  }
}
