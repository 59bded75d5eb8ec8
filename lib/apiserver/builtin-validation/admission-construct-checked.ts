import { ADMISSION_VALIDATORS } from './admission';
import { formatIssue, Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/**
 * The fields of the webhook configurations `OperatorWebhooks` generates that the construct reports itself, in the
 * words of the operator's contract (`contract.webhooks[0].timeoutSeconds: must be an integer from 1 to 30 ...`): a
 * webhook's timeout, failure policy, operations and matchConditions (lib/apimachinery/controller-contract's
 * webhookProblems, lib/operator/webhook-match-conditions). Everything else of them is generated, or checked only here.
 *
 * @internal
 */
export const OPERATOR_WEBHOOK_FIELDS: (path: string) => boolean = (path) =>
  /^webhooks\[\d+\]\.(timeoutSeconds|failurePolicy|matchConditions|rules\[\d+\]\.operations)(\b|\[|$)/.test(path);

/** Every field of a policy or binding's spec: its construct runs the very validators of admission.ts on it. @internal */
export const POLICY_SPEC_FIELDS: (path: string) => boolean = (path) => path.startsWith('spec.') || path === 'spec';

const CHECKED_BY_CONSTRUCT = new WeakMap<object, (path: string) => boolean>();

/**
 * Marks `object` (an ApiObject) as one whose construct reports the fields `checked` itself: the app-wide check
 * (lib/synth-metadata/served-apis-check.ts) then leaves them to it. The constructs mark their objects, so that the
 * lower layer needs to know none of them.
 *
 * @internal
 */
export function markConstructChecked(object: object, checked: (path: string) => boolean): void {
  CHECKED_BY_CONSTRUCT.set(object, checked);
}

/** The fields `object`'s construct reports itself ({@link markConstructChecked}), if any. @internal */
export function constructChecked(object: object): ((path: string) => boolean) | undefined {
  return CHECKED_BY_CONSTRUCT.get(object);
}

/**
 * `issues` (builtinObjectIssues of an admissionregistration object) without what its kind's validator says of the
 * fields `checked` that its construct already reports: the same problem is printed once. Decoding and metadata
 * issues are kept (the construct does not check them).
 *
 * @internal
 */
export function withoutConstructChecked(
  issues: readonly Issue[],
  object: any,
  version: KubernetesVersion,
  checked: (path: string) => boolean,
): Issue[] {
  const validator = ADMISSION_VALIDATORS[`${object?.apiVersion}/${object?.kind}`];
  if (!validator) return [...issues];
  const theirs = new Set(
    validator(object, version)
      .filter((i) => checked(i.path))
      .map((i) => formatIssue(i)),
  );
  return issues.filter((i) => !theirs.has(formatIssue(i)));
}
