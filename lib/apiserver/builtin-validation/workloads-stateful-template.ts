import { podAnnotationsIssues } from './pod-annotations';
import { podTemplateIssues } from './pod-spec';
import { forbidden, invalid, isObject, notSupported } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName, isValidLabelValue } from '../../apimachinery/names';

/*
 * A StatefulSet's pod template. Measured: 1.28 and 1.32 do not validate its pod spec at all (a container named
 * `Bad_Name` is accepted), only `ValidatePodTemplateSpecForStatefulSet`'s labels and annotations (at
 * `spec.template.labels`, not `metadata.labels`), the restart policy and `activeDeadlineSeconds`; 1.36 validates it
 * as every other kind's, with a volume for each claim template (claims first, in their order, one per name, then the
 * template's volumes of other names), so that mounts of claims resolve. 1.33 to 1.35 are unmeasured: checked as the
 * older ones (what they refuse at most goes unreported).
 */

function validatesPodSpec(version: KubernetesVersion): boolean {
  return minorOf(version) >= 36;
}

/** The template with the claim templates' volumes, as 1.36 validates it. */
function withClaimVolumes(spec: any): any {
  const template = spec.template;
  if (!isObject(template) || !Array.isArray(spec.volumeClaimTemplates) || spec.volumeClaimTemplates.length === 0) {
    return template;
  }
  const names: string[] = [];
  for (const claim of spec.volumeClaimTemplates) {
    const name = isObject(claim) && isObject(claim.metadata) ? String(claim.metadata.name ?? '') : '';
    if (!names.includes(name)) names.push(name);
  }
  const claims = names.map((name) => ({ name, persistentVolumeClaim: { claimName: name } }));
  const podSpec = isObject(template.spec) ? template.spec : {};
  const own = Array.isArray(podSpec.volumes) ? podSpec.volumes : [];
  const others = own.filter((v: any) => !(isObject(v) && names.includes(v.name)));
  return { ...template, spec: { ...podSpec, volumes: [...claims, ...others] } };
}

/**
 * The template without hostname and subdomain: 1.36 accepts any (`-a`, `SCTP`, `example.com/A` measured; its
 * controller names each pod's host after the pod and the governing Service).
 */
function withoutHostNames(template: any): any {
  if (!isObject(template) || !isObject(template.spec)) return template;
  const { hostname, subdomain, ...spec } = template.spec;
  return { ...template, spec };
}

/** The StatefulSet's checks of its template on `version`. @internal */
export function statefulSetTemplateIssues(spec: any, version: KubernetesVersion): Issue[] {
  const template = isObject(spec.template) ? spec.template : {};
  const meta = isObject(template.metadata) ? template.metadata : {};
  const podSpec = isObject(template.spec) ? template.spec : {};
  const issues: Issue[] = [];
  for (const [k, v] of Object.entries(isObject(meta.labels) ? meta.labels : {})) {
    for (const err of isQualifiedName(k, version)) issues.push(invalid('spec.template.labels', k, err));
    for (const err of isValidLabelValue(String(v), version)) issues.push(invalid('spec.template.labels', v, err));
  }
  // ValidateAnnotations checks the lower-cased key
  for (const k of Object.keys(isObject(meta.annotations) ? meta.annotations : {})) {
    for (const err of isQualifiedName(k.toLowerCase(), version)) {
      issues.push(invalid('spec.template.annotations', k, err));
    }
  }
  // ValidatePodSpecificAnnotations (1.36's ValidatePodTemplateSpec reports them a second time, as the labels: measured)
  issues.push(...podAnnotationsIssues('spec.template.annotations', meta.annotations, podSpec, version));
  if (podSpec.activeDeadlineSeconds != null) {
    issues.push(
      forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in StatefulSet is not Supported'),
    );
  }
  if (validatesPodSpec(version)) {
    issues.push(
      ...podTemplateIssues(withoutHostNames(withClaimVolumes(spec)), 'spec.template', version, {
        restartPolicies: ['Always'],
      }),
    );
  } else if (podSpec.restartPolicy && podSpec.restartPolicy !== 'Always') {
    // the restart policy defaults to Always
    issues.push(notSupported('spec.template.spec.restartPolicy', podSpec.restartPolicy, ['Always']));
  }
  return issues;
}
