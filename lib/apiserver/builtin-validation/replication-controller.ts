import { podTemplateIssues } from './pod-spec';
import { invalidValue, isRecord } from './services-field-errors';
import { readOnlyDisksIssues, replicatedBy } from './workloads-read-only-disks';
import { required } from '../../apimachinery/field';
import { goJson } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { labelMapIssues } from '../../apimachinery/label-selector';

/*
 * A v1 ReplicationController as the apiserver checks it on create (pkg/apis/core/validation's
 * ValidateReplicationControllerSpec and ValidatePodTemplateSpecForRC), after SetDefaults_ReplicationController: an
 * empty selector becomes the template's labels, and so do the controller's own labels when it has none (so a bad
 * template label is reported at `metadata.labels` too), `replicas` defaults to 1. The pod template's own checks are
 * `podTemplateIssues`'s. Measured on 1.28, 1.32 and 1.36 (storage-differential.test.ts).
 */

const labelsOf = (value: unknown): Record<string, unknown> | undefined => (isRecord(value) ? value : undefined);

/** A map[string]string as the apiserver prints it: Go's `%#v` up to 1.33, JSON from 1.34. */
function shownLabels(labels: Record<string, unknown> | undefined, version: KubernetesVersion): string {
  if (since(version, 'fieldValuesAsJson')) return labels ? goJson(labels) : 'null';
  if (!labels) return 'map[string]string(nil)';
  const entries = Object.keys(labels)
    .sort()
    .map((k) => `${goJson(k)}:${goJson(String(labels[k]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function replicationControllerIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const template = isRecord(spec.template) ? spec.template : undefined;
  const templateLabels = labelsOf(isRecord(template?.metadata) ? template.metadata.labels : undefined);
  const given = labelsOf(spec.selector);
  const selector = given && Object.keys(given).length > 0 ? given : templateLabels;
  const issues: Issue[] = [];
  const ownLabels = labelsOf(object?.metadata?.labels);
  if ((!ownLabels || Object.keys(ownLabels).length === 0) && templateLabels) {
    issues.push(...labelMapIssues(templateLabels, 'metadata.labels', version));
  }
  const nonNegative = (path: string, value: unknown) => {
    if (typeof value === 'number' && value < 0) {
      issues.push(...invalidValue(path, value, ['must be greater than or equal to 0'], version));
    }
  };
  nonNegative('spec.minReadySeconds', spec.minReadySeconds);
  const selecting = selector !== undefined && Object.keys(selector).length > 0;
  if (!selecting) issues.push(required('spec.selector'));
  nonNegative('spec.replicas', spec.replicas);
  if (!template) {
    issues.push(required('spec.template'));
    return issues;
  }
  if (selecting && !Object.entries(selector).every(([k, v]) => templateLabels?.[k] === v)) {
    issues.push({
      path: 'spec.template.metadata.labels',
      message: `Invalid value: ${shownLabels(templateLabels, version)}: \`selector\` does not match template \`labels\``,
      value: templateLabels,
    });
  }
  issues.push(
    ...podTemplateIssues(template, 'spec.template', version, {
      restartPolicies: ['Always'],
      activeDeadlineSecondsUnsupportedIn: 'ReplicationController',
    }),
    ...readOnlyDisksIssues(template, replicatedBy(spec.replicas), version),
  );
  return issues;
}

/** @internal */
export const REPLICATION_CONTROLLER_VALIDATORS = {
  'v1/ReplicationController': replicationControllerIssues,
} as const;
