import { labelMapIssues } from './label-selector';
import { resourcesIssues } from './pod-spec-resources';
import { tolerationsIssues } from './pod-spec-scheduling';
import { invalidValue, isRecord } from './services-field-errors';
import { required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of a node.k8s.io/v1 RuntimeClass (pkg/apis/node/validation's
 * ValidateRuntimeClass). Measured on 1.28, 1.32 and 1.36 (cluster-differential).
 */

/**
 * 1.36 reports an empty handler as missing and a toleration at `scheduling.tolerations[i]`; 1.28 and 1.32 give the
 * DNS-label message for "" and repeat the list's name (`scheduling.tolerations.tolerations[i]`, validateScheduling
 * passing its own path to ValidateTolerations, which adds it again). Measured; the versions between follow 1.32.
 */
const NEW_PATHS = 36;

/** @internal */
export function runtimeClassIssues(object: any, version: KubernetesVersion): Issue[] {
  if (!isRecord(object)) return [];
  const issues: Issue[] = [];
  const handler = typeof object.handler === 'string' ? object.handler : '';
  if (handler === '' && minorOf(version) >= NEW_PATHS) issues.push(required('handler'));
  else issues.push(...invalidValue('handler', handler, isDns1123Label(handler), version));
  // validateOverhead: the fixed pod overhead checked as a container's limits, at `overhead.limits[name]`
  if (isRecord(object.overhead) && isRecord(object.overhead.podFixed)) {
    issues.push(...resourcesIssues('overhead', { limits: object.overhead.podFixed }, version, false));
  }
  if (isRecord(object.scheduling)) {
    issues.push(...labelMapIssues(object.scheduling.nodeSelector, 'scheduling.nodeSelector', version));
    const path = minorOf(version) >= NEW_PATHS ? 'scheduling.tolerations' : 'scheduling.tolerations.tolerations';
    issues.push(...tolerationsIssues(path, object.scheduling.tolerations, version));
  }
  return issues;
}
