import { child, index, invalid, isObject, key, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * What 1.36's apiserver checks of a StatefulSet beyond older ones (measured: 1.28 and 1.32 accept all of it): its
 * `serviceName` as a DNS label and the spec of each `volumeClaimTemplates` entry as a PersistentVolumeClaim's
 * (kubernetes/kubernetes#132212, merged mid-2025: probably 1.34, unmeasured, so 1.33 to 1.35 are not checked).
 */

/** Whether `version` checks the StatefulSet's serviceName and claim templates (measured on 1.36, not on 1.32). */
function checksClaimTemplates(version: KubernetesVersion): boolean {
  return minorOf(version) >= 36;
}

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];

/** The StatefulSet's `serviceName` and `volumeClaimTemplates` checks of `version`. @internal */
export function statefulSetClaimIssues(spec: any, version: KubernetesVersion): Issue[] {
  if (!checksClaimTemplates(version)) return [];
  const issues: Issue[] = [];
  if (typeof spec.serviceName === 'string' && spec.serviceName !== '') {
    for (const err of isDns1123Label(spec.serviceName)) issues.push(invalid('spec.serviceName', spec.serviceName, err));
  }
  const templates: unknown[] = Array.isArray(spec.volumeClaimTemplates) ? spec.volumeClaimTemplates : [];
  templates.forEach((t, i) => {
    const claim: any = isObject(t) && isObject(t.spec) ? t.spec : {};
    issues.push(...claimSpecIssues(claim, child(index('spec.volumeClaimTemplates', i), 'spec')));
  });
  return issues;
}

/** The access modes and storage request of `ValidatePersistentVolumeClaimSpec`. */
function claimSpecIssues(claim: any, path: string): Issue[] {
  const issues: Issue[] = [];
  const modesPath = child(path, 'accessModes');
  const modes: unknown[] = Array.isArray(claim.accessModes) ? claim.accessModes : [];
  if (modes.length === 0) issues.push(required(modesPath, 'at least 1 access mode is required'));
  for (const mode of modes) {
    if (!ACCESS_MODES.includes(String(mode))) issues.push(notSupported(modesPath, mode, ACCESS_MODES));
  }
  if (modes.includes('ReadWriteOncePod') && modes.length > 1) {
    issues.push(invalid(modesPath, modes, 'may not use ReadWriteOncePod with other access modes'));
  }
  const storagePath = key(child(path, 'resources'), 'storage');
  const storage =
    isObject(claim.resources) && isObject(claim.resources.requests) ? claim.resources.requests.storage : undefined;
  if (storage === undefined) {
    issues.push(required(storagePath));
  } else if (Quantity.isValid(String(storage)) && Quantity.parse(String(storage)).sign() <= 0n) {
    issues.push(invalid(storagePath, storage, 'must be greater than zero'));
  }
  return issues;
}
