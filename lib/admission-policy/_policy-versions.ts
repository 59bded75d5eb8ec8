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

/**
 * The messages of each version, once each: a message of only some versions says which (`on Kubernetes 1.28, 1.29:
 * …`), the others as they are.
 *
 * @internal
 */
export function perVersion(versions: readonly KubernetesVersion[], messages: (v: KubernetesVersion) => string[]): string[] {
  const seen = new Map<string, KubernetesVersion[]>();
  for (const v of versions) for (const m of messages(v)) seen.set(m, [...(seen.get(m) ?? []), v]);
  return [...seen].map(([m, on]) => (on.length === versions.length ? m : `on Kubernetes ${on.join(', ')}: ${m}`));
}
