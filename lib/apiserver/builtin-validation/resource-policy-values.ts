import { canonicalQuantity } from './resource-policy-quantity';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';

/**
 * A resource.Quantity as the apiserver prints it as a field error's value: JSON (its canonical text, quoted) from
 * 1.34 (fieldValuesAsJson); before, Go's `%#v` of the struct, whose internals (and cached text) synth does not
 * reproduce: shown as `resource.Quantity{…}`.
 *
 * @internal
 */
export function shownQuantity(text: string, version: KubernetesVersion): string {
  return since(version, 'fieldValuesAsJson') ? JSON.stringify(canonicalQuantity(text)) : 'resource.Quantity{…}';
}
