import { IConstruct } from 'constructs';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../apimachinery/kubernetes-versions';
import { servedBy } from '../apimachinery/served-apis';
import { targetVersions } from '../synth-metadata/target-versions';

/**
 * The versions whose verdicts count: those of the app's range that serve the policy's API version (the default
 * version outside an app, or when none of the range does).
 *
 * @internal
 */
export function policyVersions(scope: IConstruct, manifest: { readonly apiVersion: string; readonly kind: string }): KubernetesVersion[] {
  const served = (targetVersions(scope) ?? []).filter(v => servedBy(manifest.apiVersion, manifest.kind, v));
  return served.length > 0 ? served : [DEFAULT_KUBERNETES_VERSION];
}
