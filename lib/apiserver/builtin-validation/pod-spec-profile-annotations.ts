import {
  APPARMOR_ANNOTATION_PREFIX,
  SECCOMP_CONTAINER_ANNOTATION_PREFIX,
  SECCOMP_POD_ANNOTATION,
} from './pod-annotations';
import { containersWithPath, obj, str } from './pod-spec-common';
import { child, forbidden } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * The deprecated seccomp and AppArmor annotations of a pod (or pod template) and its profile fields agree where both
 * are set (validateSeccompAnnotationsAndFields, validateAppArmorAnnotationsAndFieldsMatchOnCreate; on a Pod and every
 * template the apiserver validates as such: a StatefulSet's from 1.36 alone, as its pod spec).
 */

/** The issues of the pod spec at `specPath` and its annotations. `pod`: a Pod (whose AppArmor annotations the
 * apiserver copies into fields first), not a template. @internal */
export function profileAnnotationsIssues(
  specPath: string,
  annotations: unknown,
  spec: Record<string, any>,
  version: KubernetesVersion,
  pod: boolean,
): Issue[] {
  const a = obj(annotations);
  const issues: Issue[] = [];
  const podSeccomp = obj(spec.securityContext).seccompProfile;
  if (podSeccomp != null && SECCOMP_POD_ANNOTATION in a) {
    const at = child(specPath, 'securityContext', 'seccompProfile');
    issues.push(...mismatchIssues(at, str(a[SECCOMP_POD_ANNOTATION]), obj(podSeccomp), 'seccomp'));
  }
  for (const [c, at] of containersWithPath(specPath, spec)) {
    const profile = obj(c.securityContext).seccompProfile;
    const k = SECCOMP_CONTAINER_ANNOTATION_PREFIX + str(c.name);
    if (profile != null && k in a) {
      issues.push(
        ...mismatchIssues(child(at, 'securityContext', 'seccompProfile'), str(a[k]), obj(profile), 'seccomp'),
      );
    }
  }
  return [...issues, ...appArmorIssues(specPath, a, spec, version, pod)];
}

/**
 * validateAppArmorAnnotationsAndFieldsMatchOnCreate: a container's profile (its own, else the pod's) against its
 * annotation, Windows pods aside. From 1.30, the fields' first version. A Pod's container without a profile of its
 * own gets its annotation's first (applyAppArmorVersionSkew, the Pod strategy's PrepareForCreate), when that names a
 * valid profile, so that only an unknown or invalid annotation can disagree with the pod's profile (measured on 1.32
 * and 1.36: `localhost/bar` beside the pod's Localhost `foo` passes on a Pod, is refused in a Deployment's template).
 */
function appArmorIssues(
  specPath: string,
  a: Record<string, any>,
  spec: Record<string, any>,
  version: KubernetesVersion,
  pod: boolean,
): Issue[] {
  if (minorOf(version) < 30 || obj(spec.os).name === 'windows') return [];
  const podProfile = obj(spec.securityContext).appArmorProfile;
  return containersWithPath(specPath, spec).flatMap(([c, at]) => {
    const own = obj(c.securityContext).appArmorProfile;
    const k = APPARMOR_ANNOTATION_PREFIX + str(c.name);
    if (!(k in a)) return [];
    const annotation = str(a[k]);
    if (own == null && pod && annotationProfileIsValid(annotation)) return [];
    const profile = own ?? podProfile;
    if (profile == null) return [];
    return mismatchIssues(child(at, 'securityContext', 'appArmorProfile'), annotation, obj(profile), 'apparmor');
  });
}

/**
 * Whether applyAppArmorVersionSkew copies the annotation into a field: `runtime/default`, `unconfined` or
 * `localhost/<name>` whose name passes ValidateAppArmorProfileField (not padded with whitespace, at most 4095 bytes).
 */
function annotationProfileIsValid(annotation: string): boolean {
  if (annotation === 'runtime/default' || annotation === 'unconfined') return true;
  if (!annotation.startsWith('localhost/')) return false;
  const name = annotation.slice('localhost/'.length);
  return name !== '' && name.trim() === name && new TextEncoder().encode(name).length <= 4095;
}

/** validateSeccompAnnotationsAndFieldsMatch and its AppArmor twin: a profile of an unknown type is not compared. */
function mismatchIssues(
  path: string,
  annotation: string,
  profile: Record<string, any>,
  what: 'seccomp' | 'apparmor',
): Issue[] {
  const typeMismatch = [forbidden(child(path, 'type'), `${what} type in annotation and field must match`)];
  switch (profile.type) {
    case 'Unconfined':
      return annotation === 'unconfined' ? [] : typeMismatch;
    case 'RuntimeDefault': {
      // seccomp's `docker/default` is RuntimeDefault's old name
      const names = what === 'seccomp' ? ['runtime/default', 'docker/default'] : ['runtime/default'];
      return names.includes(annotation) ? [] : typeMismatch;
    }
    case 'Localhost':
      if (!annotation.startsWith('localhost/')) return typeMismatch;
      if (profile.localhostProfile == null || annotation.slice('localhost/'.length) !== profile.localhostProfile) {
        return [forbidden(child(path, 'localhostProfile'), `${what} profile in annotation and field must match`)];
      }
      return [];
    default:
      return [];
  }
}
