import { annotationKeysIssues, labelsIssues, nameIssues, obj } from './pod-spec-common';
import { claimSpecIssues } from './storage-claims';
import { child, forbidden, required } from '../../apimachinery/field';
import { goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isDns1123Subdomain } from '../../apimachinery/names';
import { generatedName } from '../value-validation/object-meta';

/*
 * A generic ephemeral volume (validateEphemeralVolumeSource): its claim template (ValidatePersistentVolumeClaimTemplate)
 * and, in a Pod, the name of the claim its controller will create (`<pod name>-<volume name>`). Measured on 1.28, 1.32
 * and 1.36 alike, in a Pod and in a Deployment's template (pod-spec-differential.test.ts).
 */

/**
 * The template's ObjectMeta fields other than labels and annotations, in Go's struct order, as validateFieldAllowList
 * names them (the Go field's name with its first letter lowered: `UID` is `uID`), and whether a JSON value sets them.
 * Go compares each with its zero value: a string or `generation` set to `''` or `0`, or any `null`, is unset; a
 * pointer (`deletionGracePeriodSeconds: 0`, `deletionTimestamp`) or a slice (even `[]`) is set (measured).
 */
const TEMPLATE_META_FIELDS: ReadonlyArray<readonly [json: string, path: string]> = [
  ['name', 'name'],
  ['generateName', 'generateName'],
  ['namespace', 'namespace'],
  ['selfLink', 'selfLink'],
  ['uid', 'uID'],
  ['resourceVersion', 'resourceVersion'],
  ['generation', 'generation'],
  ['creationTimestamp', 'creationTimestamp'],
  ['deletionTimestamp', 'deletionTimestamp'],
  ['deletionGracePeriodSeconds', 'deletionGracePeriodSeconds'],
  ['ownerReferences', 'ownerReferences'],
  ['finalizers', 'finalizers'],
  ['managedFields', 'managedFields'],
];

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '' && value !== 0;
}

/**
 * ValidateTemplateObjectMeta: labels and annotations checked, every other field `cannot be set` (measured, the same
 * words on 1.28, 1.32 and 1.36; older sources said `cannot be set for an ephemeral volume`).
 */
function templateMetaIssues(path: string, metadata: unknown, version: KubernetesVersion): Issue[] {
  const meta = obj(metadata);
  return [
    ...annotationKeysIssues(child(path, 'annotations'), meta.annotations, version),
    ...labelsIssues(child(path, 'labels'), meta.labels, version),
    ...TEMPLATE_META_FIELDS.filter(([json]) =>
      json === 'deletionGracePeriodSeconds' ? meta[json] != null : isSet(meta[json]),
    ).map(([, at]) => forbidden(child(path, at), 'cannot be set')),
  ];
}

/**
 * validateEphemeralVolumeSource at `path` (`spec.volumes[0].ephemeral`): a claim template is required, its metadata
 * as a template's, its spec as a claim's as written (no claim's PrepareForCreate runs on it).
 *
 * @internal
 */
export function ephemeralSourceIssues(path: string, source: unknown, version: KubernetesVersion): Issue[] {
  const template = obj(source).volumeClaimTemplate;
  const at = child(path, 'volumeClaimTemplate');
  if (template == null) return [required(at)];
  return [
    ...templateMetaIssues(child(at, 'metadata'), obj(template).metadata, version),
    ...claimSpecIssues(obj(template).spec, child(at, 'spec'), version, { template: true }),
  ];
}

/**
 * The check validateVolumeSource adds for a Pod's ephemeral volume (templates have no pod name): the claim's name,
 * `<pod name>-<volume name>`, must be a PersistentVolumeClaim's (a DNS subdomain: at most 253 characters), reported at
 * the volume's `name`. Skipped without either name (their own checks report that). Measured: an invalid pod or volume
 * name is reported here again.
 *
 * @internal
 */
export function ephemeralClaimNameIssues(volumePath: string, volumeName: string, podName: string | undefined): Issue[] {
  if (!podName || volumeName === '') return [];
  const claimName = `${podName}-${volumeName}`;
  return nameIssues(
    child(volumePath, 'name'),
    volumeName,
    isDns1123Subdomain(claimName).map((m) => `PVC name ${goQuote(claimName)}: ${m}`),
  );
}

/**
 * The name a Pod is validated with on create: its own, or the one generated from `generateName` before validation
 * (`generatedName`).
 *
 * @internal
 */
export function createdPodName(metadata: unknown): string | undefined {
  const meta = obj(metadata);
  if (typeof meta.name === 'string' && meta.name !== '') return meta.name;
  if (typeof meta.generateName === 'string' && meta.generateName !== '') {
    return generatedName(meta.generateName);
  }
  return undefined;
}
