import { ApiObject } from 'cdk8s';
import { IConstruct } from 'constructs';
import { checkPodSecurityRestricted, podSpecPath } from './pod-security-restricted';
import { isRbacRoleKind, lintRbac } from './rbac-lint';
import { errorsOf, formatIssue, Issue, warningsOf } from '../apimachinery/issue';
import { Warnings } from '../synth-metadata/warnings';

/** A check over manifests, e.g. `checkPodSecurityRestricted` or `lintRbac`. */
export type ManifestCheck = (manifests: readonly unknown[]) => Issue[];

/** `OperatorAppProps.policy`: the synth-time policy over every object of the app. */
export interface PolicyOptions {
  /**
   * The checks to run over every object.
   * @default - Pod Security "restricted" (`checkPodSecurityRestricted`) and the RBAC lint (`lintRbac`)
   */
  readonly checks?: readonly ManifestCheck[];
}

/** The checks run when `PolicyOptions.checks` is not given. @internal */
export const DEFAULT_POLICY_CHECKS: readonly ManifestCheck[] = [checkPodSecurityRestricted, lintRbac];

/**
 * Runs the policy over every `ApiObject` below `root`: returns the errors (each naming the object's
 * construct path, kind/name, field and bad value) and records the warnings with `Warnings`.
 *
 * @internal
 */
export function runPolicyChecks(root: IConstruct, options: PolicyOptions = {}): string[] {
  const checks = options.checks ?? DEFAULT_POLICY_CHECKS;
  // The default checks read workloads and roles only; rendering every other object's manifest for them
  // (toJson, which synth repeats) was a seventh of a large app's synth.
  const defaultsOnly = checks.every((check) => DEFAULT_POLICY_CHECKS.includes(check));
  const errors: string[] = [];
  for (const obj of root.node.findAll().filter(ApiObject.isApiObject)) {
    if (defaultsOnly && podSpecPath(obj.kind) === undefined && !isRbacRoleKind(obj.kind)) continue;
    const manifest = obj.toJson();
    const issues = checks.flatMap((check) => check([manifest]));
    for (const e of errorsOf(issues)) errors.push(`policy: [${obj.node.path}] ${formatIssue(e)}`);
    for (const w of warningsOf(issues)) Warnings.of(obj).add(`policy: ${formatIssue(w)}`);
  }
  return errors;
}
