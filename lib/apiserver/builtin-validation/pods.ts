import { podAnnotationsIssues } from './pod-annotations';
import { podSpecIssues, podTemplateIssues } from './pod-spec';
import { createdPodName } from './pod-spec-ephemeral-volumes';
import { profileAnnotationsIssues } from './pod-spec-profile-annotations';
import { BuiltinValidators } from './validator';

/**
 * Pods and PodTemplates: a Pod's spec (its metadata is ObjectMeta's, checked for every kind) and a PodTemplate's
 * template (any restart policy).
 *
 * @internal
 */
export const POD_VALIDATORS: BuiltinValidators = {
  'v1/Pod': (object, version) => [
    ...podAnnotationsIssues('metadata.annotations', object?.metadata?.annotations, object?.spec ?? {}, version),
    ...podSpecIssues(object?.spec, 'spec', version, {
      pod: true,
      labels: object?.metadata?.labels,
      name: createdPodName(object?.metadata),
    }),
    ...profileAnnotationsIssues('spec', object?.metadata?.annotations, object?.spec ?? {}, version, true),
  ],
  'v1/PodTemplate': (object, version) =>
    podTemplateIssues(object?.template, 'template', version, { restartPolicies: [] }),
};
