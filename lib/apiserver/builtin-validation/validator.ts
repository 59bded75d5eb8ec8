import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/**
 * What the apiserver's validation of one built-in kind refuses on create, for one Kubernetes version: the object as
 * the app emits it (before the apiserver's defaults), issues in the apiserver's own field paths and words.
 *
 * @internal
 */
export type BuiltinValidator = (object: any, version: KubernetesVersion) => Issue[];

/** Validators keyed `apiVersion/Kind` (`apps/v1/Deployment`, `v1/ConfigMap`). @internal */
export type BuiltinValidators = Readonly<Record<string, BuiltinValidator>>;
