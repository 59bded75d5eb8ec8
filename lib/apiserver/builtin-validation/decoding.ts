import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/**
 * What the apiserver's strict decoding refuses in a built-in object before any validation (unknown fields, values of
 * the wrong type). An object with such an error is refused with it alone.
 *
 * @internal
 */
export function decodingIssues(_object: any, _version: KubernetesVersion): Issue[] {
  return [];
}
