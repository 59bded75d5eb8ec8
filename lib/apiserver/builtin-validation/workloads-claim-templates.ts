import { claimSpecIssues } from './storage-claims';
import { child, index, invalid, isObject } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label } from '../../apimachinery/names';

/*
 * What 1.36's apiserver checks of a StatefulSet beyond older ones (measured: 1.28 and 1.32 accept all of it, a claim
 * template's spec without access modes or storage, of a bad class, mode, selector or data source): its
 * `serviceName` as a DNS label and the spec of each `volumeClaimTemplates` entry as a PersistentVolumeClaim's, whole
 * (ValidatePersistentVolumeClaimSpec, storage-claims.ts: measured, its storage class, volume mode, data sources,
 * selector and volumeAttributesClassName too), as written (kubernetes/kubernetes#132212, merged mid-2025: probably
 * 1.34, unmeasured, so 1.33 to 1.35 are not checked). No version checks a claim template's metadata (a namespace,
 * finalizers, a bad label key, two templates of one name: measured, accepted), but for its name as a volume's from
 * 1.36 (workloads-stateful-template.ts).
 */

/** Whether `version` checks the StatefulSet's serviceName and claim templates (measured on 1.36, not on 1.32). */
function checksClaimTemplates(version: KubernetesVersion): boolean {
  return minorOf(version) >= 36;
}

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
    issues.push(
      ...claimSpecIssues(claim, child(index('spec.volumeClaimTemplates', i), 'spec'), version, { template: true }),
    );
  });
  return issues;
}
