import { ADMISSION_REGISTRATION_KINDS } from './object-meta-names';
import { child, index, invalid } from '../../apimachinery/field';
import { fieldValue, goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';

/*
 * The ObjectMeta checks of built-in objects that custom resources' `checkObjectMeta` does not make: owner references,
 * the Kubernetes finalizer names and metadata.generation (apimachinery's ValidateOwnerReferences, ValidateFinalizers,
 * core's validateKubeFinalizerName), measured on 1.28, 1.32 and 1.36.
 */

/** The finalizers a name without a `/` may be (core's helper.IsStandardFinalizerName). */
const STANDARD_FINALIZERS: ReadonlySet<string> = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

/**
 * The kinds (`group/Kind`) whose validation calls apimachinery's generic ValidateObjectMeta rather than core's (which
 * adds validateKubeFinalizerName): any qualified name is a finalizer of theirs (`foo`, `http`, `1.5`). Measured on
 * 1.28, 1.32 and 1.36 on every kind synth checks: the admissionregistration kinds, PodDisruptionBudget, Lease,
 * APIService, RuntimeClass and the core Event (events.k8s.io's Event is validated as a core one: it checks them).
 */
const ANY_FINALIZER_NAME: ReadonlySet<string> = new Set([
  ...ADMISSION_REGISTRATION_KINDS,
  'policy/PodDisruptionBudget',
  'coordination.k8s.io/Lease',
  'apiregistration.k8s.io/APIService',
  'node.k8s.io/RuntimeClass',
  '/Event',
]);

/**
 * `orphan` and `foregroundDeletion` not both (apimachinery's ValidateFinalizers, every kind); each finalizer a
 * standard one or fully qualified (`example.com/name`), for the kinds core's ValidateObjectMeta validates.
 *
 * @internal
 */
export function finalizerIssues(finalizers: unknown, version: KubernetesVersion, groupKind: string): Issue[] {
  if (!Array.isArray(finalizers)) return [];
  const path = 'metadata.finalizers';
  const issues: Issue[] = [];
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    issues.push(
      invalid(
        path,
        finalizers,
        `${stringList(finalizers, version)}: finalizer orphan and foregroundDeletion cannot be both set`,
      ),
    );
  }
  if (ANY_FINALIZER_NAME.has(groupKind)) return issues;
  finalizers.forEach((f, i) => {
    if (typeof f === 'string' && !f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      issues.push(
        invalid(
          index(path, i),
          f,
          `${fieldValue(f, version)}: name is neither a standard finalizer name nor is it fully qualified`,
        ),
      );
    }
  });
  return issues;
}

/** A `[]string` as the apiserver prints it: `%#v` (`[]string{"a", "b"}`) before JSON values. */
function stringList(list: readonly unknown[], version: KubernetesVersion): string {
  if (since(version, 'fieldValuesAsJson')) return fieldValue(list, version);
  return `[]string{${list.map((x) => goQuote(String(x))).join(', ')}}`;
}

/**
 * Owner references: apiVersion with a version, kind, name and uid set, no Event as owner, one controller at most.
 * Their errors name `metadata.ownerReferences.<field>` without an index, as the apiserver does.
 *
 * @internal
 */
export function ownerReferenceIssues(refs: unknown, version: KubernetesVersion): Issue[] {
  if (!Array.isArray(refs)) return [];
  const path = 'metadata.ownerReferences';
  // 1.36 says `must not be empty` for kind, name and uid (1.28 and 1.32: `kind must not be empty`...); the apiVersion's
  // message is the same in all three
  const empty = (what: string) => (minorOf(version) >= 36 ? 'must not be empty' : `${what} must not be empty`);
  const issues: Issue[] = [];
  let controller: string | undefined;
  for (const ref of refs) {
    if (typeof ref !== 'object' || ref === null) continue;
    const str = (v: unknown) => (typeof v === 'string' ? v : '');
    const [apiVersion, kind, name, uid] = [str(ref.apiVersion), str(ref.kind), str(ref.name), str(ref.uid)];
    const gv = groupVersion(apiVersion);
    if (!gv.version) {
      issues.push(
        invalid(child(path, 'apiVersion'), apiVersion, `${fieldValue(apiVersion, version)}: version must not be empty`),
      );
    }
    if (!kind) issues.push(invalid(child(path, 'kind'), kind, `"": ${empty('kind')}`));
    if (!name) issues.push(invalid(child(path, 'name'), name, `"": ${empty('name')}`));
    if (!uid) issues.push(invalid(child(path, 'uid'), uid, `"": ${empty('uid')}`));
    if (gv.group === '' && gv.version === 'v1' && kind === 'Event') {
      issues.push(invalid(path, ref, `${ownerValue(ref, version)}: /v1, Kind=Event is disallowed from being an owner`));
    }
    if (ref.controller === true) {
      const current = `${kind}/${name}`;
      if (controller === undefined) {
        controller = current;
      } else {
        issues.push(
          invalid(
            path,
            refs,
            `${fieldValue(refs, version)}: Only one reference can have Controller set to true. ` +
              `Found "true" in references for ${controller} and ${current}`,
          ),
        );
      }
    }
  }
  return issues;
}

/**
 * An owner reference as the apiserver prints it: `%#v` of the Go struct before JSON values (its pointers as `nil`,
 * as they are when unset; a set one prints an address, which no one can foresee).
 */
function ownerValue(ref: Record<string, unknown>, version: KubernetesVersion): string {
  if (since(version, 'fieldValuesAsJson')) return fieldValue(ref, version);
  const s = (k: string) => goQuote(typeof ref[k] === 'string' ? (ref[k] as string) : '');
  const p = (k: string) => (ref[k] === undefined ? '(*bool)(nil)' : '(*bool)(0xc000000000)');
  return (
    `v1.OwnerReference{APIVersion:${s('apiVersion')}, Kind:${s('kind')}, Name:${s('name')}, UID:${s('uid')}, ` +
    `Controller:${p('controller')}, BlockOwnerDeletion:${p('blockOwnerDeletion')}}`
  );
}

/** schema.FromAPIVersionAndKind's group and version: empty when the apiVersion does not parse (`a/b/c`, `apps/`). */
function groupVersion(apiVersion: string): { group: string; version: string } {
  const parts = apiVersion.split('/');
  if (apiVersion === '' || parts.length > 2) return { group: '', version: '' };
  return parts.length === 1 ? { group: '', version: parts[0] } : { group: parts[0], version: parts[1] };
}

/**
 * The kinds (`group/Kind`) whose strategy's PrepareForCreate sets metadata.generation before validation: whatever
 * the body says is not validated. Measured (a generation of -1 on
 * create) on 1.28, 1.32 and 1.36; DeviceClass on 1.36, the first of the three to serve resource.k8s.io/v1.
 */
const GENERATION_SET_ON_CREATE: ReadonlySet<string> = new Set([
  'apps/Deployment',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'apps/StatefulSet',
  '/ReplicationController',
  '/PodTemplate',
  'batch/Job',
  'batch/CronJob',
  'discovery.k8s.io/EndpointSlice',
  'networking.k8s.io/Ingress',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/NetworkPolicy',
  'policy/PodDisruptionBudget',
  'scheduling.k8s.io/PriorityClass',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  ...ADMISSION_REGISTRATION_KINDS,
  'resource.k8s.io/DeviceClass',
]);

/**
 * A Pod's generation is set to 1 on create since 1.33 (podStrategy.PrepareForCreate, KEP-5067, whatever the
 * PodObservedGenerationTracking gate): measured, 1.28 and 1.32 refuse -1, 1.36 accepts it.
 */
const POD_GENERATION_SINCE = 33;

/**
 * metadata.generation is never negative (ValidateNonnegativeField), where the kind's strategy leaves the body's.
 *
 * @internal
 */
export function generationIssues(generation: unknown, version: KubernetesVersion, groupKind: string): Issue[] {
  if (typeof generation !== 'number' || generation >= 0) return [];
  if (GENERATION_SET_ON_CREATE.has(groupKind)) return [];
  if (groupKind === '/Pod' && minorOf(version) >= POD_GENERATION_SINCE) return [];
  return [
    invalid(
      'metadata.generation',
      generation,
      `${fieldValue(generation, version)}: must be greater than or equal to 0`,
    ),
  ];
}
