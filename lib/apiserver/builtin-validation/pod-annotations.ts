import { intOutOfRange, jsonKind } from './decoding-go';
import { containersWithPath, localDescendingPathIssues, obj, str } from './pod-spec-common';
import { tolerationsIssues } from './pod-spec-scheduling';
import { invalidValue } from './services-field-errors';
import { child, invalid, isObject, key } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * ValidatePodSpecificAnnotations: the annotations of a Pod (at `metadata.annotations`) and of every pod template (at
 * `spec.template.annotations`, a StatefulSet's too) that the apiserver reads: the mirror pod's, the tolerations, the
 * deletion cost and the deprecated seccomp and AppArmor profiles. Measured alike on 1.28, 1.32 and 1.36. Note the
 * paths: the seccomp ones are upstream's `Child(key)` (`annotations.seccomp.security.alpha.kubernetes.io/pod`), the
 * others `Key(key)`.
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
  const names = new Set(containersWithPath('', spec).map(([c]) => c.name));
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
 * ValidateTolerationsInPodAnnotations: a non-empty annotation is decoded with Go's encoding/json into the internal
 * `[]core.Toleration`; what does not decode is refused at the annotations' path (`Invalid value:
 * "scheduler.alpha.kubernetes.io/tolerations": json: cannot unmarshal number into Go struct field Toleration.Key of
 * type string`), the rest checked as ValidateTolerations checks a pod's (at `…/tolerations[0].key`). Measured on 1.28,
 * 1.32 and 1.36. Go's syntax errors (`invalid character 'o' in literal null (expecting 'u')`) are worded by synth's
 * own parser: same field and verdict.
 */
function tolerationsAnnotationIssues(path: string, value: string, version: KubernetesVersion): Issue[] {
  if (value === '') return [];
  const decoded = decodeTolerations(value);
  if (typeof decoded === 'string') return invalidValue(path, TOLERATIONS_ANNOTATION, [decoded], version);
  return tolerationsIssues(child(path, TOLERATIONS_ANNOTATION), decoded, version);
}

/** core.Toleration's fields (no JSON tags: encoding/json matches them case-insensitively) and their Go types. */
const TOLERATION_FIELDS: Readonly<Record<string, readonly [json: string, goType: string]>> = {
  Key: ['key', 'string'],
  Operator: ['operator', 'core.TolerationOperator'],
  Value: ['value', 'string'],
  Effect: ['effect', 'core.TaintEffect'],
  TolerationSeconds: ['tolerationSeconds', 'int64'],
};

/**
 * The tolerations Go's encoding/json decodes from `text` (with the API's JSON field names), or its error: the first
 * type error in document order (Go goes on decoding and reports the first), `null` a nil list or a zero Toleration.
 */
function decodeTolerations(text: string): unknown[] | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return text.trim() === '' ? 'unexpected end of JSON input' : (e as Error).message;
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) {
    return `json: cannot unmarshal ${jsonKind(parsed)} into Go value of type []core.Toleration`;
  }
  const out: unknown[] = [];
  for (const item of parsed) {
    if (item === null) {
      out.push({});
      continue;
    }
    if (!isObject(item)) return `json: cannot unmarshal ${jsonKind(item)} into Go value of type core.Toleration`;
    const toleration: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item)) {
      const field = Object.keys(TOLERATION_FIELDS).find((f) => f.toLowerCase() === k.toLowerCase());
      if (!field || v === null) continue;
      const [json, goType] = TOLERATION_FIELDS[field];
      const wrong =
        goType === 'int64'
          ? typeof v === 'number'
            ? intOutOfRange(v, 64)
            : jsonKind(v)
          : typeof v === 'string'
            ? undefined
            : jsonKind(v);
      if (wrong) return `json: cannot unmarshal ${wrong} into Go struct field Toleration.${field} of type ${goType}`;
      toleration[json] = v;
    }
    out.push(toleration);
  }
  return out;
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
