import { arr, obj, str } from './pod-spec-common';
import { duplicate, index, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A container's resizePolicy (validateResizePolicy): which resources may be resized in place, and whether the
 * container restarts for it. InPlacePodVerticalScaling is on by default from 1.33; measured: 1.28 and 1.32 drop the
 * field (nothing to check), 1.36 checks it on containers and init containers alike (sidecar or not).
 */

const RESOURCES = ['cpu', 'memory'];
const POLICIES = ['NotRequired', 'RestartContainer'];

/** Whether `version` keeps (and checks) the resizePolicy its decoding accepts. @internal */
export const resizeChecked = (version: KubernetesVersion) => minorOf(version) >= 33;

/**
 * validateResizePolicy at `path` (`…containers[0].resizePolicy`): every error but the duplicate at the list's own
 * path, as upstream reports them. `podRestartPolicy` is the pod's, as defaulted (`Always` when unset).
 *
 * @internal
 */
export function resizePolicyIssues(
  path: string,
  policies: unknown,
  podRestartPolicy: string,
  version: KubernetesVersion,
): Issue[] {
  if (!resizeChecked(version)) return [];
  const issues: Issue[] = [];
  const seen = new Set<string>();
  arr(policies).forEach((raw, i) => {
    const p = obj(raw);
    const name = str(p.resourceName);
    const policy = str(p.restartPolicy);
    if (seen.has(name)) issues.push(duplicate(index(path, i), name));
    seen.add(name);
    if (name === '') issues.push(required(path));
    else if (!RESOURCES.includes(name)) issues.push(notSupported(path, name, RESOURCES));
    if (policy === '') issues.push(required(path));
    else if (!POLICIES.includes(policy)) issues.push(notSupported(path, policy, POLICIES));
    if (podRestartPolicy === 'Never' && policy !== 'NotRequired') {
      issues.push(invalid(path, policy, "must be 'NotRequired' when pod `restartPolicy` is 'Never'"));
    }
  });
  return issues;
}
