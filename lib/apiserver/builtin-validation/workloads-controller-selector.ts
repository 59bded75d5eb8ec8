import {
  LabelSelectorLike,
  selectorAt,
  selectorConverts,
  selectorIsEmpty,
  selectorMatches,
  templateLabels,
} from './workloads-selector';
import { child, invalid, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';

/** How one controller kind checks its `spec.selector` against its `spec.template`. @internal */
export interface ControllerSelectorRules {
  /** A missing selector is `Required` (Deployment, ReplicaSet, StatefulSet; a DaemonSet's only fails to match). */
  readonly required: boolean;
  /** The kind's word in `empty selector is invalid for <kind>`. */
  readonly emptyFor: string;
  /** The detail of the `spec.selector` error when the selector does not convert; none: no such error (DaemonSet). */
  readonly unconvertibleDetail?: string;
}

/**
 * The selector checks of the apps kinds' specs at `spec`: the selector itself, not empty, and matching the labels
 * of the pod template (skipped when the selector does not convert; a missing selector matches nothing).
 *
 * @internal
 */
export function controllerSelectorIssues(
  spec: any,
  path: string,
  version: KubernetesVersion,
  rules: ControllerSelectorRules,
): Issue[] {
  const at = child(path, 'selector');
  const selector: LabelSelectorLike | undefined = selectorAt(spec?.selector);
  const issues: Issue[] = [];
  if (selector === undefined) {
    if (rules.required) issues.push(required(at));
  } else {
    issues.push(...labelSelectorIssues(selector, at, version));
    if (selectorIsEmpty(selector)) {
      issues.push(invalid(at, selector, `empty selector is invalid for ${rules.emptyFor}`));
    }
  }
  if (!selectorConverts(selector)) {
    if (rules.unconvertibleDetail !== undefined) issues.push(invalid(at, selector, rules.unconvertibleDetail));
  } else if (selector === undefined || !selectorIsEmpty(selector)) {
    const labels = templateLabels(spec?.template);
    if (!selectorMatches(selector, labels)) {
      issues.push(
        invalid(child(path, 'template', 'metadata', 'labels'), labels, '`selector` does not match template `labels`'),
      );
    }
  }
  return issues;
}
