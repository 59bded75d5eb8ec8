import { builtinKindServed, isBuiltinGroup, removedApi } from './builtin-apis';
import { KubernetesVersion, minorOf, SUPPORTED_KUBERNETES_RANGE } from './kubernetes-versions';

/**
 * Built-in API versions that not every supported Kubernetes version serves by default, keyed `apiVersion/Kind`:
 * the first minor version that serves it (`from`) and the last (`until`). Every other built-in API version the
 * project emits is served by all of 1.28 to 1.37. Beta APIs behind a feature gate count as not served (a cluster
 * must be configured for them). 1.28, 1.32 and 1.36 are checked against their apiservers' discovery
 * (test/apimachinery/served-apis.test.ts); the versions between follow upstream's release notes, and 1.37, which
 * has no apiserver here, upstream's v1.37 API sources.
 *
 * @internal
 */
export const SERVED_API_RANGES: Readonly<Record<string, { readonly from?: number; readonly until?: number }>> = {
  // admission policies: v1 in 1.30 (1.28 and 1.29: v1beta1, off unless the ValidatingAdmissionPolicy gate and the
  // admissionregistration.k8s.io/v1beta1 API are turned on)
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy': { from: 30 },
  'admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding': { from: 30 },
  'admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicy': { from: 99 },
  'admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicyBinding': { from: 99 },
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicy': { from: 36 },
  'admissionregistration.k8s.io/v1/MutatingAdmissionPolicyBinding': { from: 36 },
  // API priority and fairness: v1 in 1.29; v1beta2 removed in 1.29, v1beta3 in 1.32
  'flowcontrol.apiserver.k8s.io/v1/FlowSchema': { from: 29 },
  'flowcontrol.apiserver.k8s.io/v1/PriorityLevelConfiguration': { from: 29 },
  'flowcontrol.apiserver.k8s.io/v1beta2/FlowSchema': { until: 28 },
  'flowcontrol.apiserver.k8s.io/v1beta2/PriorityLevelConfiguration': { until: 28 },
  'flowcontrol.apiserver.k8s.io/v1beta3/FlowSchema': { until: 31 },
  'flowcontrol.apiserver.k8s.io/v1beta3/PriorityLevelConfiguration': { until: 31 },
  // Service IP ranges (GA 1.33), dynamic resource allocation and volume attributes classes (GA 1.34)
  'networking.k8s.io/v1/ServiceCIDR': { from: 33 },
  'networking.k8s.io/v1/IPAddress': { from: 33 },
  'resource.k8s.io/v1/DeviceClass': { from: 34 },
  'resource.k8s.io/v1/ResourceClaim': { from: 34 },
  'resource.k8s.io/v1/ResourceClaimTemplate': { from: 34 },
  'resource.k8s.io/v1/ResourceSlice': { from: 34 },
  'storage.k8s.io/v1/VolumeAttributesClass': { from: 34 },
  // StorageVersionMigration: v1alpha1 1.30-1.34, v1beta1 from 1.35, each served only with both the
  // StorageVersionMigrator gate and its --runtime-config (measured by tools/probe/storage-migration-apis.ts, output in
  // bench/latest/storage-migration-apis.json: v1alpha1 on 1.32.13, v1beta1 on 1.36.3, neither by default, nor with
  // only one of the two; 1.32.13 does not know v1beta1, 1.36.3 no longer knows v1alpha1); v1 is new in 1.37 (k8s.io/api
  // v0.37.0-beta.0, commit 1c293eaf810b, storagemigration/v1/types.go: `prerelease-lifecycle-gen:introduced=1.37`; its
  // feature gate's default lives in kubernetes/kubernetes' pkg/features, which is not readable here: upstream's release
  // notes' word, unmeasured)
  'storagemigration.k8s.io/v1alpha1/StorageVersionMigration': { from: 99 },
  'storagemigration.k8s.io/v1beta1/StorageVersionMigration': { from: 99 },
  'storagemigration.k8s.io/v1/StorageVersionMigration': { from: 37 },
  // GA in 1.37 by the same sources (k8s.io/api v0.37.0-beta.0, `prerelease-lifecycle-gen:introduced=1.37` on their v1
  // types; no v1 type before): certificates.k8s.io/v1 ClusterTrustBundle (v1beta1 from 1.33 and v1alpha1 before,
  // behind their gate) and resource.k8s.io/v1 DeviceTaintRule (v1alpha3, then v1beta2, behind their gate). Not served
  // by 1.28.15, 1.32.13 or 1.36.3 (measured); served by 1.37 by upstream's word, unmeasured
  'certificates.k8s.io/v1/ClusterTrustBundle': { from: 37 },
  'resource.k8s.io/v1/DeviceTaintRule': { from: 37 },
};

/**
 * Whether `version` serves `apiVersion` `kind` by default: as the table says for the API versions it names; for
 * another apiVersion of a built-in API group (`apps`, `policy`, `extensions`...), only when v1.32.13's discovery
 * lists the kind there (what 1.28 to 1.37 all serve: `policy/v1beta1 PodDisruptionBudget`, `v1 Deployment` are
 * served by none); custom resources (any other group) are served.
 *
 * @internal
 */
export function servedBy(apiVersion: string, kind: string, version: KubernetesVersion): boolean {
  const range = SERVED_API_RANGES[`${apiVersion}/${kind}`];
  if (!range) return !isBuiltinGroup(apiVersion) || builtinKindServed(apiVersion, kind);
  const minor = minorOf(version);
  return minor >= (range.from ?? 0) && minor <= (range.until ?? Infinity);
}

/**
 * What a reader needs to know about an API version the table names: `served from 1.30`, `served until 1.31`,
 * `not served by default (a feature gate)`, and for a built-in API version no supported version serves what
 * replaces it (`removed in Kubernetes 1.25: use policy/v1`).
 *
 * @internal
 */
export function servedRange(apiVersion: string, kind: string): string | undefined {
  const range = SERVED_API_RANGES[`${apiVersion}/${kind}`];
  if (!range) return removedApi(apiVersion, kind);
  if ((range.from ?? 0) > minorOf(SUPPORTED_KUBERNETES_RANGE.max)) {
    return 'not served by default by any supported version (behind a feature gate)';
  }
  if (range.from !== undefined) return `served from Kubernetes 1.${range.from}`;
  return `served until Kubernetes 1.${range.until}`;
}

/**
 * The first version of `versions` (oldest first) from which on `apiVersion` `kind` is served, when an older one of
 * them does not serve it and every newer one does; undefined otherwise.
 *
 * @internal
 */
export function servedFrom(
  apiVersion: string,
  kind: string,
  versions: readonly KubernetesVersion[],
): KubernetesVersion | undefined {
  const first = versions.findIndex((v) => servedBy(apiVersion, kind, v));
  if (first <= 0) return undefined;
  return versions.slice(first).every((v) => servedBy(apiVersion, kind, v)) ? versions[first] : undefined;
}

/**
 * Why no supported version serves `apiVersion` `kind` when it is a built-in API version the table does not name
 * (removed, or a kind in the wrong group: `removedApi`'s words); undefined otherwise.
 *
 * @internal
 */
export function neverServed(apiVersion: string, kind: string): string | undefined {
  return SERVED_API_RANGES[`${apiVersion}/${kind}`] ? undefined : removedApi(apiVersion, kind);
}
