import { podSpecIssues, podTemplateIssues } from './pod-spec';
import { createdPodName } from './pod-spec-ephemeral-volumes';
import { BuiltinValidators } from './validator';

/**
 * Pods and PodTemplates: a Pod's spec (its metadata is ObjectMeta's, checked for every kind) and a PodTemplate's
 * template (any restart policy).
 *
 * @internal
 */
export const POD_VALIDATORS: BuiltinValidators = {
  'v1/Pod': (object, version) =>
    podSpecIssues(object?.spec, 'spec', version, {
      pod: true,
      labels: object?.metadata?.labels,
      name: createdPodName(object?.metadata),
    }),
  'v1/PodTemplate': (object, version) =>
    podTemplateIssues(object?.template, 'template', version, { restartPolicies: [] }),
};
