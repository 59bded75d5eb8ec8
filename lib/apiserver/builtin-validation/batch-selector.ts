import { LabelSelectorLike, selectorAt, selectorConverts, selectorMatches, templateLabels } from './workloads-selector';
import { invalid, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';

/*
 * A Job's selector on create. Unless `manualSelector` is true, the apiserver generates it (PrepareForCreate): it adds
 * `batch.kubernetes.io/controller-uid: <uid>` to the selector's matchLabels and the uid and name labels (legacy and
 * prefixed) to the template's labels the user did not set; then the selector must select exactly those generated
 * labels (`selector` not auto-generated: a user's own selector needs `manualSelector: true`), and labels the user
 * set under those keys must hold the generated values.
 */

const UID_LABELS = ['controller-uid', 'batch.kubernetes.io/controller-uid'];
/** @internal */
export const NAME_LABELS = ['job-name', 'batch.kubernetes.io/job-name'];
/** The Job's uid, unknown before the apiserver assigns it (a valid label value no user writes). */
const UID = 'uid-assigned-on-create';

/** @internal */
export function jobSelectorIssues(spec: any, name: string, version: KubernetesVersion): Issue[] {
  const user = selectorAt(spec.selector);
  if (spec.manualSelector === true) return selectorAndTemplateIssues(user, templateLabels(spec.template), version);
  const issues: Issue[] = [];
  const labels = { ...templateLabels(spec.template) };
  const generated: Record<string, string> = {};
  for (const key of UID_LABELS) generated[key] = UID;
  for (const key of NAME_LABELS) generated[key] = name;
  for (const [key, value] of Object.entries(generated)) {
    if (!(key in labels)) {
      labels[key] = value;
    } else if (labels[key] !== value) {
      const shown = value === UID ? "<the Job's uid>" : value;
      issues.push({
        ...invalid(`spec.template.metadata.labels[${key}]`, labels[key], `must be '${shown}'`),
        hint: 'the apiserver sets this label itself: remove it',
      });
    }
  }
  const selector: LabelSelectorLike = {
    ...user,
    matchLabels: { [UID_LABELS[1]]: UID, ...(user?.matchLabels ?? {}) },
  };
  if (selectorConverts(selector) && !selectorMatches(selector, generated)) {
    issues.push({
      ...invalid('spec.selector', user, '`selector` not auto-generated'),
      hint: 'set manualSelector: true to use a selector of your own',
    });
  }
  if (user !== undefined) issues.push(...labelSelectorIssues(user, 'spec.selector', version));
  return [...issues, ...templateMatchIssues(selector, labels)];
}

/** `ValidateJobSpec`'s selector checks: required, valid, and selecting the template's labels. */
function selectorAndTemplateIssues(
  selector: LabelSelectorLike | undefined,
  labels: Record<string, string>,
  version: KubernetesVersion,
): Issue[] {
  const issues =
    selector === undefined ? [required('spec.selector')] : labelSelectorIssues(selector, 'spec.selector', version);
  return [...issues, ...templateMatchIssues(selector, labels)];
}

function templateMatchIssues(selector: LabelSelectorLike | undefined, labels: Record<string, string>): Issue[] {
  return selectorConverts(selector) && !selectorMatches(selector, labels)
    ? [invalid('spec.template.metadata.labels', labels, '`selector` does not match template `labels`')]
    : [];
}
