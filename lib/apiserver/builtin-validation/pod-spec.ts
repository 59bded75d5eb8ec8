import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/** How a workload kind constrains the pod template it holds. @internal */
export interface PodTemplateOptions {
  /** The restart policies the kind allows (a Deployment `Always` only, a Job `OnFailure` and `Never`). */
  readonly restartPolicies: readonly string[];
}

/**
 * The apiserver's checks of a PodTemplateSpec held at `path` (`spec.template`) on create: its metadata's labels and
 * annotations and its pod spec (containers, volumes, ports, env, resources, probes...).
 *
 * @internal
 */
export function podTemplateIssues(
  _template: any,
  _path: string,
  _version: KubernetesVersion,
  _options: PodTemplateOptions,
): Issue[] {
  return [];
}
