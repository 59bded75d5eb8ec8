import { podAnnotationsIssues } from './pod-annotations';
import { podClaimNames, podResourceClaimsIssues } from './pod-spec-claims';
import {
  annotationKeysIssues,
  arr,
  dnsLabelIssues,
  dnsSubdomainIssues,
  ipIssues,
  labelsIssues,
  nameIssues,
  obj,
  optionalSubdomainIssues,
  str,
} from './pod-spec-common';
import { hostPortConflicts, containersIssues } from './pod-spec-containers';
import { dnsIssues } from './pod-spec-dns';
import { podResourcesIssues } from './pod-spec-pod-resources';
import { profileAnnotationsIssues } from './pod-spec-profile-annotations';
import { resourcesIssues } from './pod-spec-resources';
import { affinityIssues, schedulingGatesIssues, tolerationsIssues, topologySpreadIssues } from './pod-spec-scheduling';
import { hostUsersIssues, podSecurityContextIssues, unmaskedProcMountIssues } from './pod-spec-security';
import { volumesIssues } from './pod-spec-volumes';
import { hostProcessIssues, osIssues } from './pod-spec-windows';
import { child, forbidden, index, invalid, notSupported } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName } from '../../apimachinery/names';

/** How a workload kind constrains the pod template it holds. @internal */
export interface PodTemplateOptions {
  /** The restart policies the kind allows (a Deployment `Always` only, a Job `OnFailure` and `Never`). */
  readonly restartPolicies: readonly string[];
  /**
   * The kind named when `activeDeadlineSeconds` is refused (`activeDeadlineSeconds in ReplicaSet is not Supported`, as
   * apps/v1 says for Deployments and ReplicaSets; `StatefulSet`, `DaemonSet`).
   * @default - allowed (Jobs, CronJobs, PodTemplates)
   */
  readonly activeDeadlineSecondsUnsupportedIn?: string;
}

/** How a pod spec is checked besides its path. @internal */
export interface PodSpecOptions {
  /** A Pod (not a template): its defaults copy limits into missing requests, and ephemeral containers are its own. */
  readonly pod: boolean;
  /** A Pod's labels: its create merges them into its topology spread selectors (1.34+). */
  readonly labels?: Record<string, unknown>;
  /** A Pod's name as its create validates it (createdPodName): its ephemeral volumes' claims are named after it. */
  readonly name?: string;
}

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
/** hostAliases: 1.28 reports them without the indices (`hostAliases.ip`; measured), 1.32 with. */
function hostAliasesIssues(path: string, aliases: unknown, version: KubernetesVersion): Issue[] {
  const indexed = minorOf(version) >= 32;
  return arr(aliases).flatMap((raw, i) => {
    const a = obj(raw);
    const at = indexed ? index(path, i) : path;
    return [
      ...ipIssues(child(at, 'ip'), str(a.ip), version),
      ...arr(a.hostnames).flatMap((h, j) =>
        dnsSubdomainIssues(indexed ? index(child(at, 'hostnames'), j) : child(at, 'hostnames'), str(h)),
      ),
    ];
  });
}

/**
 * ValidatePodSpec of a pod spec at `path` (`spec`, `spec.template.spec`), as defaulted: what users write by hand and
 * get wrong (containers, ports, env, volumes, mounts, resources, probes, policies, scheduling, security contexts).
 *
 * @internal
 */
export function podSpecIssues(
  raw: unknown,
  path: string,
  version: KubernetesVersion,
  options: PodSpecOptions,
): Issue[] {
  const spec = obj(raw);
  const volumes = volumesIssues(child(path, 'volumes'), spec.volumes, version, options.pod ? options : undefined);
  const issues: Issue[] = [
    ...volumes.issues,
    ...containersIssues(path, spec, {
      version,
      volumes: volumes.valid,
      hostNetwork: spec.hostNetwork === true,
      pod: options.pod,
    }),
    ...hostPortConflicts(path, spec),
  ];
  if (arr(spec.ephemeralContainers).length > 0) {
    issues.push(
      forbidden(
        child(path, 'ephemeralContainers'),
        options.pod ? 'cannot be set on create' : 'ephemeral containers not allowed in pod template',
      ),
    );
  }
  // a Pod's labels, merged into its selectors' label keys on create (a template's are not)
  const podLabels = options.pod ? obj(options.labels) : undefined;
  const restartPolicy = spec.restartPolicy || 'Always'; // the apiserver defaults an empty policy too
  if (!RESTART_POLICIES.includes(restartPolicy)) {
    issues.push(notSupported(child(path, 'restartPolicy'), restartPolicy, RESTART_POLICIES));
  }
  issues.push(...dnsIssues(path, spec, version));
  issues.push(...labelsIssues(child(path, 'nodeSelector'), spec.nodeSelector, version));
  issues.push(...podSecurityContextIssues(child(path, 'securityContext'), spec.securityContext, spec, version));
  issues.push(...hostProcessIssues(path, spec));
  issues.push(...hostUsersIssues(path, spec, version));
  issues.push(...unmaskedProcMountIssues(path, spec, version));
  // the deprecated serviceAccount is serviceAccountName's alias when that is empty (Convert_v1_PodSpec_To_core_PodSpec)
  const serviceAccountName = str(spec.serviceAccountName) || spec.serviceAccount;
  issues.push(...optionalSubdomainIssues(child(path, 'serviceAccountName'), serviceAccountName));
  issues.push(...optionalSubdomainIssues(child(path, 'nodeName'), spec.nodeName));
  issues.push(...optionalSubdomainIssues(child(path, 'priorityClassName'), spec.priorityClassName));
  // a pointer: an empty name is checked too (measured)
  if (typeof spec.runtimeClassName === 'string') {
    issues.push(...dnsSubdomainIssues(child(path, 'runtimeClassName'), spec.runtimeClassName));
  }
  for (const f of ['hostname', 'subdomain']) {
    if (typeof spec[f] === 'string' && spec[f] !== '') issues.push(...dnsLabelIssues(child(path, f), spec[f]));
  }
  const deadline = spec.activeDeadlineSeconds;
  if (typeof deadline === 'number' && (deadline < 1 || deadline > 2147483647)) {
    issues.push(invalid(child(path, 'activeDeadlineSeconds'), deadline, 'must be between 1 and 2147483647, inclusive'));
  }
  if (spec.preemptionPolicy != null && !['PreemptLowerPriority', 'Never'].includes(spec.preemptionPolicy)) {
    issues.push(
      notSupported(child(path, 'preemptionPolicy'), spec.preemptionPolicy, ['PreemptLowerPriority', 'Never']),
    );
  }
  if (spec.overhead != null) {
    // validateOverhead: a container's limits' checks
    issues.push(...resourcesIssues(child(path, 'overhead'), { limits: spec.overhead }, version, false));
  }
  issues.push(...osIssues(path, spec, version));
  issues.push(...hostAliasesIssues(child(path, 'hostAliases'), spec.hostAliases, version));
  arr(spec.readinessGates).forEach((g, i) => {
    const type = str(obj(g).conditionType);
    const at = child(index(child(path, 'readinessGates'), i), 'conditionType');
    issues.push(...nameIssues(at, type, isQualifiedName(type, version)));
  });
  issues.push(...tolerationsIssues(child(path, 'tolerations'), spec.tolerations, version));
  issues.push(...affinityIssues(child(path, 'affinity'), spec.affinity, version, podLabels));
  issues.push(...schedulingGatesIssues(path, spec, version, options.pod));
  issues.push(
    ...topologySpreadIssues(
      child(path, 'topologySpreadConstraints'),
      spec.topologySpreadConstraints,
      version,
      podLabels,
    ),
  );
  issues.push(...podResourceClaimsIssues(child(path, 'resourceClaims'), spec.resourceClaims, version));
  issues.push(...podResourcesIssues(child(path, 'resources'), spec, podClaimNames(spec), version, options.pod));
  return issues;
}

/**
 * The apiserver's checks of a PodTemplateSpec held at `path` (`spec.template`) on create: its metadata's labels and
 * annotations (reported at `spec.template.labels`, upstream's path) and its pod spec, as defaulted (restartPolicy
 * `Always` when unset: a Job template without one is refused), plus the kind's restart policies.
 *
 * @internal
 */
export function podTemplateIssues(
  template: any,
  path: string,
  version: KubernetesVersion,
  options: PodTemplateOptions,
): Issue[] {
  const t = obj(template);
  const meta = obj(t.metadata);
  const specPath = child(path, 'spec');
  const spec = obj(t.spec);
  const issues = [
    ...labelsIssues(child(path, 'labels'), meta.labels, version),
    ...annotationKeysIssues(child(path, 'annotations'), meta.annotations, version),
    ...podAnnotationsIssues(child(path, 'annotations'), meta.annotations, spec, version),
    ...podSpecIssues(spec, specPath, version, { pod: false }),
    ...profileAnnotationsIssues(specPath, meta.annotations, spec, version, false),
  ];
  const restartPolicy = spec.restartPolicy || 'Always'; // the apiserver defaults an empty policy too
  if (options.restartPolicies.length > 0 && !options.restartPolicies.includes(restartPolicy)) {
    issues.push(notSupported(child(specPath, 'restartPolicy'), restartPolicy, options.restartPolicies));
  }
  if (options.activeDeadlineSecondsUnsupportedIn && spec.activeDeadlineSeconds != null) {
    issues.push(
      forbidden(
        child(specPath, 'activeDeadlineSeconds'),
        `activeDeadlineSeconds in ${options.activeDeadlineSecondsUnsupportedIn} is not Supported`,
      ),
    );
  }
  return issues;
}
