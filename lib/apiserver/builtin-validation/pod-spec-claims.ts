import { arr, dnsLabelIssues, dnsSubdomainIssues, notFound, obj, str } from './pod-spec-common';
import { child, duplicate, index, invalid, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A pod's resource claims (dynamic resource allocation): spec.resourceClaims (validatePodResourceClaims) and the
 * claims a ResourceRequirements names (validateResourceClaimNames). Checked from 1.34 (DRA GA; 1.32 drops the field
 * with its gate off, measured; 1.33 unmeasured). 1.28's claims have another shape, refused by its decoding.
 */

/** Whether `version` keeps and checks spec.resourceClaims. @internal */
export function checksResourceClaims(version: KubernetesVersion): boolean {
  return minorOf(version) >= 34;
}

/** The names of the pod's claims (gatherPodResourceClaimNames: the non-empty ones). @internal */
export function podClaimNames(spec: Record<string, any>): ReadonlySet<string> {
  return new Set(
    arr(spec.resourceClaims)
      .map((c) => str(obj(c).name))
      .filter((n) => n !== ''),
  );
}

/** The claim in Go's %v of the internal struct, as the apiserver shows it. */
function shown(c: Record<string, any>): string {
  const ptr = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : 'null');
  return `{"Name":${JSON.stringify(str(c.name))},"ResourceClaimName":${ptr(c.resourceClaimName)},"ResourceClaimTemplateName":${ptr(c.resourceClaimTemplateName)}}`;
}

/** validatePodResourceClaims of the spec.resourceClaims at `path`. @internal */
export function podResourceClaimsIssues(path: string, raw: unknown, version: KubernetesVersion): Issue[] {
  if (!checksResourceClaims(version)) return [];
  const names = new Set<string>();
  return arr(raw).flatMap((r, i) => {
    const c = obj(r);
    const at = index(path, i);
    const name = str(c.name);
    const issues: Issue[] = [];
    if (name === '') {
      issues.push(required(child(at, 'name')));
    } else if (names.has(name)) {
      issues.push(duplicate(child(at, 'name'), name));
    } else {
      issues.push(...dnsLabelIssues(child(at, 'name'), name));
      names.add(name);
    }
    const hasName = typeof c.resourceClaimName === 'string';
    const hasTemplate = typeof c.resourceClaimTemplateName === 'string';
    if (hasName && hasTemplate) {
      issues.push(
        invalid(at, shown(c), 'at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified'),
      );
    }
    if (!hasName && !hasTemplate) {
      issues.push(invalid(at, shown(c), 'must specify one of: `resourceClaimName`, `resourceClaimTemplateName`'));
    }
    if (hasName) issues.push(...dnsSubdomainIssues(child(at, 'resourceClaimName'), c.resourceClaimName));
    if (hasTemplate) {
      issues.push(...dnsSubdomainIssues(child(at, 'resourceClaimTemplateName'), c.resourceClaimTemplateName));
    }
    return issues;
  });
}

/**
 * validateResourceClaimNames of a ResourceRequirements' claims at `path` (`…resources.claims`): each names one of
 * the pod's claims, a request of it at most once (a DNS label). A claim without a request stands for all of them: one
 * with a request repeats an earlier claim of its name without (reported by name, `gpu`), else one of the same request
 * (`gpu/a`); one without repeats an earlier one without (once), else each request of its name named before (once
 * each). Measured on 1.36 (the Status causes count the repeats).
 *
 * @internal
 */
export function resourceClaimNamesIssues(path: string, raw: unknown, podClaims: ReadonlySet<string>): Issue[] {
  const issues: Issue[] = [];
  const whole = new Set<string>();
  const requests = new Map<string, Set<string>>();
  arr(raw).forEach((r, i) => {
    const c = obj(r);
    const at = index(path, i);
    const name = str(c.name);
    const request = str(c.request);
    if (name === '') {
      issues.push(required(at));
      return;
    }
    const mine = requests.get(name) ?? requests.set(name, new Set()).get(name)!;
    if (request !== '') {
      issues.push(...dnsLabelIssues(child(at, 'request'), request));
      if (whole.has(name)) issues.push(duplicate(at, name));
      else if (mine.has(request)) issues.push(duplicate(at, `${name}/${request}`));
      else mine.add(request);
    } else {
      if (whole.has(name)) issues.push(duplicate(at, name));
      else issues.push(...[...mine].map(() => duplicate(at, name)));
      whole.add(name);
    }
    if (!podClaims.has(name)) {
      const names = [...podClaims].sort();
      const which = names.length === 0 ? ' which is empty' : `: ${names.join(', ')}`;
      issues.push({
        ...notFound(at, name),
        message: `Not found: must be one of the names in pod.spec.resourceClaims${which}`,
      });
    }
  });
  return issues;
}
