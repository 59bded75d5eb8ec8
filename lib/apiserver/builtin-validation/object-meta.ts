import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/**
 * The apiserver's ObjectMeta checks of a built-in object on create (its name as its kind requires, namespace, labels,
 * annotations).
 *
 * @internal
 */
export function builtinObjectMetaIssues(_object: any, _version: KubernetesVersion): Issue[] {
  return [];
}
