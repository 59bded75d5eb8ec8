import { ADMISSION_VALIDATORS } from './admission';
import { AUTOSCALING_VALIDATORS } from './autoscaling';
import { BATCH_VALIDATORS } from './batch';
import { CLUSTER_VALIDATORS } from './cluster';
import { CORE_VALIDATORS } from './core';
import { decodingIssues } from './decoding';
import { NETWORKING_VALIDATORS } from './networking';
import { builtinObjectMetaIssues } from './object-meta';
import { podSecurityLabelIssues } from './pod-security-labels';
import { POD_VALIDATORS } from './pods';
import { POLICY_VALIDATORS } from './policy';
import { RBAC_VALIDATORS } from './rbac';
import { RESOURCE_POLICY_VALIDATORS } from './resource-policy';
import { SERVICE_BEGIN_CREATE, SERVICE_VALIDATORS } from './services';
import { STORAGE_VALIDATORS } from './storage';
import { BuiltinValidators } from './validator';
import { WORKLOAD_VALIDATORS } from './workloads';
import { errorsOf, Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

const VALIDATORS: BuiltinValidators = {
  ...CORE_VALIDATORS,
  ...RBAC_VALIDATORS,
  ...WORKLOAD_VALIDATORS,
  ...SERVICE_VALIDATORS,
  ...BATCH_VALIDATORS,
  ...POLICY_VALIDATORS,
  ...NETWORKING_VALIDATORS,
  ...AUTOSCALING_VALIDATORS,
  ...POD_VALIDATORS,
  ...CLUSTER_VALIDATORS,
  ...ADMISSION_VALIDATORS,
  ...STORAGE_VALIDATORS,
  ...RESOURCE_POLICY_VALIDATORS,
};

/**
 * What a kind's REST storage refuses in its BeginCreate hook, after decoding and before ObjectMeta and validation:
 * where it refuses, that is all the apiserver says.
 */
const BEGIN_CREATE: BuiltinValidators = {
  ...SERVICE_BEGIN_CREATE,
};

/** What the admission plugins the apiserver runs by default refuse in an object that passed validation. */
const ADMISSION_PLUGINS: BuiltinValidators = {
  'v1/Namespace': podSecurityLabelIssues,
};

/**
 * What the kube-apiserver of `version` refuses when the app's built-in object (a ConfigMap, a Deployment, a Role...)
 * is created: first what its strict decoding refuses (then nothing else, as the apiserver stops there), then what its
 * storage's BeginCreate refuses (a Service's IP fields; then nothing else either), else its ObjectMeta checks and its
 * kind's validation, and where those pass, what the default admission plugins refuse. Measured against the real apiservers of 1.28, 1.32 and 1.36
 * (test/apiserver/builtin-validation).
 *
 * @internal
 */
export function builtinObjectIssues(object: any, version: KubernetesVersion): Issue[] {
  const decoding = decodingIssues(object, version);
  if (errorsOf(decoding).length > 0) return decoding;
  const key = `${object.apiVersion}/${object.kind}`;
  const begun = BEGIN_CREATE[key]?.(object, version) ?? [];
  if (errorsOf(begun).length > 0) return [...decoding, ...begun];
  const validated = [
    ...decoding,
    ...builtinObjectMetaIssues(object, version),
    ...(VALIDATORS[key]?.(object, version) ?? []),
  ];
  // admission runs on what validation let through: its refusals come only when validation found nothing
  if (errorsOf(validated).length > 0) return validated;
  return [...validated, ...(ADMISSION_PLUGINS[key]?.(object, version) ?? [])];
}
