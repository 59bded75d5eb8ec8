import { arr, localDescendingPathIssues, obj, str } from './pod-spec-common';
import { tolerationsIssues } from './pod-spec-scheduling';
import { child, invalid, isObject, key } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * ValidatePodSpecificAnnotations: the annotations of a Pod (at `metadata.annotations`) and of every pod template (at
 * `spec.template.annotations`, a StatefulSet's too) that the apiserver reads: the mirror pod's, the tolerations, the deletion cost and
 * the deprecated seccomp and AppArmor profiles. Measured alike on 1.28, 1.32 and 1.36. Note the paths: the seccomp
 * ones are upstream's `Child(key)` (`annotations.seccomp.security.alpha.kubernetes.io/pod`), the others `Key(key)`.
 */

/** v1.SeccompPodAnnotationKey and v1.SeccompContainerAnnotationKeyPrefix (deprecated, still validated). */
export const SECCOMP_POD_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const SECCOMP_CONTAINER_ANNOTATION_PREFIX = 'container.seccomp.security.alpha.kubernetes.io/';
/** v1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix. */
export const APPARMOR_ANNOTATION_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const TOLERATIONS_ANNOTATION = 'scheduler.alpha.kubernetes.io/tolerations';
const DELETION_COST_ANNOTATION = 'controller.kubernetes.io/pod-deletion-cost';

/** The pod-specific annotations' issues, at `path` (the annotations' own path). @internal */
export function podAnnotationsIssues(
  path: string,
  annotations: unknown,
  spec: Record<string, any>,
  version: KubernetesVersion,
): Issue[] {
  const a = obj(annotations);
  const issues: Issue[] = [];
  if (MIRROR_POD_ANNOTATION in a && str(spec.nodeName) === '') {
    issues.push(
      invalid(
        key(path, MIRROR_POD_ANNOTATION),
        a[MIRROR_POD_ANNOTATION],
        'must set spec.nodeName if mirror pod annotation is set',
      ),
    );
  }
  issues.push(...tolerationsAnnotationIssues(path, str(a[TOLERATIONS_ANNOTATION]), version));
  if (DELETION_COST_ANNOTATION in a && !isDeletionCost(str(a[DELETION_COST_ANNOTATION]))) {
    issues.push(invalid(key(path, DELETION_COST_ANNOTATION), a[DELETION_COST_ANNOTATION], 'must be a 32bit integer'));
  }
  // ValidateSeccompPodAnnotations: the pod's, then each container's (of any name: no container is looked up)
  for (const [k, v] of Object.entries(a)) {
    if (k === SECCOMP_POD_ANNOTATION || k.startsWith(SECCOMP_CONTAINER_ANNOTATION_PREFIX)) {
      issues.push(...seccompAnnotationIssues(child(path, k), str(v)));
    }
  }
  // ValidateAppArmorPodAnnotations: a container of the pod (init and ephemeral ones too), a known profile's form
  const names = new Set(
    ['initContainers', 'containers', 'ephemeralContainers'].flatMap((f) => arr(spec[f]).map((c) => obj(c).name)),
  );
  for (const [k, v] of Object.entries(a)) {
    if (!k.startsWith(APPARMOR_ANNOTATION_PREFIX)) continue;
    const container = k.slice(APPARMOR_ANNOTATION_PREFIX.length);
    if (!names.has(container)) issues.push(invalid(key(path, k), container, 'container not found'));
    const profile = str(v);
    if (!['', 'runtime/default', 'unconfined'].includes(profile) && !profile.startsWith('localhost/')) {
      issues.push(invalid(key(path, k), profile, `invalid AppArmor profile name: ${JSON.stringify(profile)}`));
    }
  }
  return issues;
}

/**
 * ValidateTolerationsInPodAnnotations: the tolerations a non-empty annotation holds, as ValidateTolerations checks
 * them (at `annotations.scheduler.alpha.kubernetes.io/tolerations[0].key`). Only JSON that Go decodes as JavaScript
 * does, a list of objects whose fields have their types, is checked: Go's decoding errors (`invalid character 'o' in
 * literal null (expecting 'u')`) are not reproduced, such an annotation passes synth.
 */
function tolerationsAnnotationIssues(path: string, value: string, version: KubernetesVersion): Issue[] {
  if (value === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [];
  }
  const typed = (t: unknown): boolean =>
    isObject(t) &&
    ['key', 'operator', 'value', 'effect'].every((f) => t[f] == null || typeof t[f] === 'string') &&
    (t.tolerationSeconds == null || Number.isInteger(t.tolerationSeconds));
  if (!Array.isArray(parsed) || !parsed.every(typed)) return [];
  return tolerationsIssues(child(path, TOLERATIONS_ANNOTATION), parsed, version);
}

/**
 * GetDeletionCostFromPodAnnotations: a decimal int32 with neither a plus sign nor a leading zero (`-05` passes: only
 * the first character is looked at before strconv.ParseInt).
 */
function isDeletionCost(value: string): boolean {
  if (!/^(-\d+|0|[1-9]\d*)$/.test(value)) return false;
  const n = Number(value);
  return n >= -2147483648 && n <= 2147483647;
}

/** ValidateSeccompProfile: `runtime/default`, `docker/default`, `unconfined` or `localhost/<a relative path>`. */
function seccompAnnotationIssues(path: string, profile: string): Issue[] {
  if (['runtime/default', 'docker/default', 'unconfined'].includes(profile)) return [];
  if (profile.startsWith('localhost/')) return localDescendingPathIssues(path, profile.slice('localhost/'.length));
  return [invalid(path, profile, 'must be a valid seccomp profile')];
}
