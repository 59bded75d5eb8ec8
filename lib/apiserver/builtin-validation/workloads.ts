import { podTemplateIssues } from './pod-spec';
import { nonNegativeIssues } from './pod-spec-common';
import { BuiltinValidators } from './validator';
import { statefulSetClaimIssues } from './workloads-claim-templates';
import { controllerSelectorIssues } from './workloads-controller-selector';
import { readOnlyDisksIssues, replicatedBy } from './workloads-read-only-disks';
import { statefulSetTemplateIssues } from './workloads-stateful-template';
import { daemonSetStrategyIssues, deploymentStrategyIssues, statefulSetStrategyIssues } from './workloads-strategies';
import { child, forbidden, invalid, isObject, notSupported } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * apps/v1's own checks of its workload kinds on create (pkg/apis/apps/validation), on the object as the apiserver
 * sees it after defaulting: a missing `replicas` is 1, a Deployment's strategy RollingUpdate 25%/25% and its
 * `progressDeadlineSeconds` 600, a StatefulSet's `podManagementPolicy` OrderedReady. The pod template's own checks
 * are `podTemplateIssues`'s; restart policies other than `Always` are refused by all four kinds.
 */

const ALWAYS = { restartPolicies: ['Always'] } as const;

function specOf(object: any): any {
  return isObject(object?.spec) ? object.spec : {};
}

/**
 * The pod template's checks, and the kind's refusal of `activeDeadlineSeconds` (`ValidatePodTemplateSpecForReplicaSet`,
 * `ValidateDaemonSetSpec`: a pod of a controller that keeps it running may not be given a deadline), and of a GCE disk
 * that is not read-only where the pods run on several nodes.
 */
function templateIssues(spec: any, version: KubernetesVersion, kind: 'ReplicaSet' | 'DaemonSet'): Issue[] {
  const deadline =
    isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec.activeDeadlineSeconds : null;
  return [
    ...podTemplateIssues(spec.template, 'spec.template', version, ALWAYS),
    ...(deadline != null
      ? [forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`)]
      : []),
    ...readOnlyDisksIssues(spec.template, kind === 'DaemonSet' || replicatedBy(spec.replicas), version),
  ];
}

/** `ValidateDeploymentSpec`. */
function deploymentIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = specOf(object);
  const minReadySeconds = spec.minReadySeconds ?? 0;
  const progressDeadlineSeconds = spec.progressDeadlineSeconds ?? 600;
  return [
    ...nonNegativeIssues('spec.replicas', spec.replicas),
    ...controllerSelectorIssues(spec, 'spec', version, {
      required: true,
      emptyFor: 'deployment',
      unconvertibleDetail: 'invalid label selector',
    }),
    ...templateIssues(spec, version, 'ReplicaSet'),
    ...deploymentStrategyIssues(spec.strategy, 'spec.strategy'),
    ...nonNegativeIssues('spec.minReadySeconds', minReadySeconds),
    ...nonNegativeIssues('spec.revisionHistoryLimit', spec.revisionHistoryLimit),
    ...nonNegativeIssues('spec.progressDeadlineSeconds', progressDeadlineSeconds),
    ...(typeof progressDeadlineSeconds === 'number' && progressDeadlineSeconds <= minReadySeconds
      ? [invalid('spec.progressDeadlineSeconds', progressDeadlineSeconds, 'must be greater than minReadySeconds')]
      : []),
  ];
}

/** `ValidateReplicaSetSpec` (its empty-selector message names a deployment, as upstream's does). */
function replicaSetIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = specOf(object);
  return [
    ...nonNegativeIssues('spec.replicas', spec.replicas),
    ...nonNegativeIssues('spec.minReadySeconds', spec.minReadySeconds),
    ...controllerSelectorIssues(spec, 'spec', version, {
      required: true,
      emptyFor: 'deployment',
      unconvertibleDetail: 'invalid label selector',
    }),
    ...templateIssues(spec, version, 'ReplicaSet'),
  ];
}

const POD_MANAGEMENT_POLICIES = ['OrderedReady', 'Parallel'];
const RETENTION_POLICIES = ['Retain', 'Delete'];

/** `ValidateStatefulSetSpec`. */
function statefulSetIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = specOf(object);
  const issues: Issue[] = [];
  const policy = spec.podManagementPolicy || 'OrderedReady';
  if (!POD_MANAGEMENT_POLICIES.includes(policy)) {
    issues.push(invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  issues.push(...statefulSetStrategyIssues(spec.updateStrategy, 'spec.updateStrategy'));
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  if (isObject(retention)) {
    for (const when of ['whenDeleted', 'whenScaled']) {
      const value = retention[when] || 'Retain';
      if (!RETENTION_POLICIES.includes(value)) {
        issues.push(notSupported(child('spec.persistentVolumeClaimRetentionPolicy', when), value, RETENTION_POLICIES));
      }
    }
  }
  issues.push(
    ...nonNegativeIssues('spec.replicas', spec.replicas),
    ...nonNegativeIssues('spec.minReadySeconds', spec.minReadySeconds),
  );
  // upstream names the field `ordinals.start` as one child
  if (isObject(spec.ordinals)) issues.push(...nonNegativeIssues('spec.ordinals.start', spec.ordinals.start));
  issues.push(
    ...controllerSelectorIssues(spec, 'spec', version, {
      required: true,
      emptyFor: 'statefulset',
      unconvertibleDetail: '',
    }),
    ...statefulSetTemplateIssues(spec, version),
    ...statefulSetClaimIssues(spec, version),
  );
  return issues;
}

/** `ValidateDaemonSetSpec`: a missing selector is no `Required` error, only a selector that matches nothing. */
function daemonSetIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = specOf(object);
  return [
    ...controllerSelectorIssues(spec, 'spec', version, { required: false, emptyFor: 'daemonset' }),
    ...templateIssues(spec, version, 'DaemonSet'),
    ...nonNegativeIssues('spec.minReadySeconds', spec.minReadySeconds),
    ...daemonSetStrategyIssues(spec.updateStrategy, 'spec.updateStrategy'),
    ...nonNegativeIssues('spec.revisionHistoryLimit', spec.revisionHistoryLimit),
  ];
}

/** @internal */
export const WORKLOAD_VALIDATORS: BuiltinValidators = {
  'apps/v1/Deployment': deploymentIssues,
  'apps/v1/ReplicaSet': replicaSetIssues,
  'apps/v1/StatefulSet': statefulSetIssues,
  'apps/v1/DaemonSet': daemonSetIssues,
};
