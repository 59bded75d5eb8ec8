import { Construct } from 'constructs';
import { QUANTITY_PATTERN } from './sampledb-crd';
import { ICustomResourceDefinition, MutatingAdmissionPolicy, ValidatingAdmissionPolicy } from '../../lib';

/** Namespace annotations the defaults come from (the defaulting webhook reads the same: controllers/sampledb/webhooks.ts). */
const SIZE = 'database.example.com/default-storage';
const CLASS = 'database.example.com/default-storage-class';
const CLASS_PATTERN = '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$';

/**
 * SampleDB's storage defaults at create as a MutatingAdmissionPolicy (Kubernetes 1.36+): `spec.storage`, when omitted,
 * from the namespace's annotation database.example.com/default-storage, else 1Gi; `spec.storageClassName`, when
 * omitted, from database.example.com/default-storage-class, else left to the cluster's default class. The same as the
 * operator's defaulting webhook, run inside the apiserver: no webhook call on the write path where the cluster serves
 * the policy.
 *
 * The demo targets 1.28 to 1.37, so the policy is emitted only where served (`onUnservedVersions: 'skip'`: its own
 * file, which APPLY.md applies on 1.36+) and the webhook stays, for older clusters. On 1.36 both run, the policy
 * first (the apiserver runs mutating policies before mutating webhooks): the webhook then finds both fields set, or a
 * namespace without a class annotation, and changes nothing. An annotation that is not a valid quantity (or class
 * name) is not copied: the field stays unset, and the webhook refuses the create naming the annotation.
 */
export function storageDefaultsPolicy(
  scope: Construct,
  crd: ICustomResourceDefinition,
  namespaces: readonly string[],
): MutatingAdmissionPolicy {
  const annotation = (key: string) =>
    `has(namespaceObject.metadata.annotations) && ${JSON.stringify(key)} in namespaceObject.metadata.annotations ? namespaceObject.metadata.annotations[${JSON.stringify(key)}] : ''`;
  const policy = new MutatingAdmissionPolicy(scope, 'storage-defaults-policy', {
    name: 'sampledb-storage-defaults',
    onUnservedVersions: 'skip',
    // the storage version (v1 requests are converted to it first: matchPolicy Equivalent), in the watched namespaces,
    // as the webhook
    matchConstraints: {
      resourceRules: ValidatingAdmissionPolicy.rulesFor(crd, ['CREATE'], [crd.storageVersion]),
      matchPolicy: 'Equivalent',
      namespaceSelector: {
        matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'In', values: [...namespaces] }],
      },
    },
    matchConditions: [
      { name: 'storage-unset', expression: '!has(object.spec.storage) || !has(object.spec.storageClassName)' },
    ],
    variables: [
      { name: 'size', expression: annotation(SIZE) },
      { name: 'storageClass', expression: annotation(CLASS) },
    ],
    mutations: [
      MutatingAdmissionPolicy.applyConfiguration(
        `!has(object.spec.storage) && (variables.size == '' || variables.size.matches(${JSON.stringify(QUANTITY_PATTERN)})) ? Object{spec: Object.spec{storage: variables.size == '' ? '1Gi' : variables.size}} : Object{}`,
      ),
      MutatingAdmissionPolicy.applyConfiguration(
        `!has(object.spec.storageClassName) && variables.storageClass.matches(${JSON.stringify(CLASS_PATTERN)}) ? Object{spec: Object.spec{storageClassName: variables.storageClass}} : Object{}`,
      ),
    ],
  });
  policy.bind('storage-defaults-binding');
  return policy;
}
