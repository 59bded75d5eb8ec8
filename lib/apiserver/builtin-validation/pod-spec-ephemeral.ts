import { checksResourceClaims } from './pod-spec-claims';
import { arr, notFound, obj, str } from './pod-spec-common';
import { resizeChecked } from './pod-spec-resize';
import { child, duplicate, forbidden, index, invalid } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * A pod's ephemeralContainers (validateEphemeralContainers), checked in templates too though refused there (and in
 * a Pod on create): what every container is checked for, a name unique among all containers, a target among the
 * others, none of the fields an ephemeral container may not have (ports, resources, probes, lifecycle, restart and
 * resize policies), no subPath.
 */

/** The fields validateFieldAllowList refuses when set (non-zero) in an ephemeral container. */
const NOT_ALLOWED = [
  'ports',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'restartPolicyRules',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
];

/**
 * Whether a field is set as Go sees it after decoding: a present list (even empty; measured, `ports: []` refused) or
 * a non-empty struct (`resources: {}` passes), and kept by `version` (1.28 and 1.32 drop resizePolicy and
 * resources.claims).
 */
function isSet(field: string, value: unknown, version: KubernetesVersion): boolean {
  if (value == null || (field === 'resizePolicy' && !resizeChecked(version))) return false;
  if (field === 'resources') {
    // resources.claims is dropped where dynamic resource allocation is off (measured: 1.28 and 1.32 drop it)
    return Object.entries(obj(value)).some(([k, v]) => v != null && (k !== 'claims' || checksResourceClaims(version)));
  }
  return true;
}

/**
 * The ephemeral containers of the pod spec at `specPath`. `common`: validateContainerCommon of one (its name, image,
 * mounts, resources, security context...), as for the other containers.
 *
 * @internal
 */
export function ephemeralContainersIssues(
  specPath: string,
  spec: any,
  version: KubernetesVersion,
  common: (path: string, c: Record<string, any>) => Issue[],
): Issue[] {
  const others = new Set([...arr(spec.containers), ...arr(spec.initContainers)].map((c) => str(obj(c).name)));
  const all = new Set(others);
  const path = child(specPath, 'ephemeralContainers');
  return arr(spec.ephemeralContainers).flatMap((raw, i) => {
    const c = obj(raw);
    const at = index(path, i);
    const issues = common(at, c);
    const image = str(c.image);
    // validateContainerOnlyForPod: a Pod's check of its containers, also a template's of its ephemeral ones
    if (image.trim() !== image) {
      issues.push(invalid(child(at, 'image'), image, 'must not have leading or trailing whitespace'));
    }
    const name = str(c.name);
    if (all.has(name)) issues.push(duplicate(child(at, 'name'), name));
    else all.add(name);
    const target = str(c.targetContainerName);
    if (target !== '' && !others.has(target)) issues.push(notFound(child(at, 'targetContainerName'), target));
    for (const f of NOT_ALLOWED) {
      if (isSet(f, c[f], version)) issues.push(forbidden(child(at, f), 'cannot be set for an Ephemeral Container'));
    }
    arr(c.volumeMounts).forEach((m, j) => {
      for (const f of ['subPath', 'subPathExpr']) {
        if (str(obj(m)[f]) !== '') {
          issues.push(
            forbidden(child(index(child(at, 'volumeMounts'), j), f), 'cannot be set for an Ephemeral Container'),
          );
        }
      }
    });
    return issues;
  });
}
