import { IConstruct } from 'constructs';
import {
  DEFAULT_KUBERNETES_VERSION,
  KUBERNETES_VERSIONS,
  KubernetesVersion,
} from '../apimachinery/kubernetes-versions';
import { servedBy } from '../apimachinery/served-apis';
import { targetVersions } from '../synth-metadata/target-versions';

/**
 * The versions whose verdicts count: those of the app's range that serve the policy's API version (outside an app, or
 * when none of the range does: the default version, or the first that serves it when the default does not).
 *
 * @internal
 */
export function policyVersions(
  scope: IConstruct,
  manifest: { readonly apiVersion: string; readonly kind: string },
): KubernetesVersion[] {
  const served = (targetVersions(scope) ?? []).filter((v) => servedBy(manifest.apiVersion, manifest.kind, v));
  if (served.length > 0) return served;
  if (servedBy(manifest.apiVersion, manifest.kind, DEFAULT_KUBERNETES_VERSION)) return [DEFAULT_KUBERNETES_VERSION];
  return [
    KUBERNETES_VERSIONS.find((v) => servedBy(manifest.apiVersion, manifest.kind, v)) ?? DEFAULT_KUBERNETES_VERSION,
  ];
}
