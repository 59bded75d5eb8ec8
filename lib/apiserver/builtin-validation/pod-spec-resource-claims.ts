import { arr, dnsLabelIssues, notFound, obj, str } from './pod-spec-common';
import { child, duplicate, index, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A container's resources.claims (validateResourceClaimNames): each names one of the pod's resourceClaims, once.
 * DynamicResourceAllocation is on by default from 1.34; measured: 1.32 drops the claims (nothing to check), 1.36
 * checks those of containers and init containers.
 */

/** Whether `version` keeps (and checks) the claims of containers and pods. @internal */
export const claimsChecked = (version: KubernetesVersion) => minorOf(version) >= 34;

/** The names a container's claims may refer to: the pod's resourceClaims' non-empty names, valid or not. @internal */
export function podClaimNames(spec: any): ReadonlySet<string> {
  return new Set(
    arr(spec.resourceClaims)
      .map((c) => str(obj(c).name))
      .filter((n) => n !== ''),
  );
}

/**
 * validateResourceClaimNames at `path` (`…resources.claims`). A claim without a request stands for all of them: one
 * with a request repeats an earlier claim of its name without (reported by name, `gpu`), else one of the same
 * request (`gpu/a`); one without repeats an earlier one without (once), else each request of its name named before
 * (once each). Measured on 1.36 (the Status causes count the repeats).
 *
 * @internal
 */
export function containerClaimsIssues(
  path: string,
  claims: unknown,
  podClaims: ReadonlySet<string>,
  version: KubernetesVersion,
): Issue[] {
  if (!claimsChecked(version)) return [];
  const issues: Issue[] = [];
  const whole = new Set<string>();
  const requests = new Map<string, Set<string>>();
  arr(claims).forEach((raw, i) => {
    const c = obj(raw);
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
      // once for the whole claim repeated, else once per request of it named before
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
