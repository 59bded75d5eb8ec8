import { isExtended, isNative, STANDARD_RESOURCES as CONTAINER_STANDARD_RESOURCES } from './pod-spec-resources';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName } from '../../apimachinery/names';

/*
 * The resource names a LimitRange and a ResourceQuota may hold (pkg/apis/core/validation's validateResourceName,
 * validateContainerResourceName, ValidateResourceQuotaResourceName, with pkg/apis/core/helper's sets). Containers'
 * own resources are pod-spec-resources.ts's.
 */

/**
 * field.Invalid of a resource name, one issue per detail. The name is a core.ResourceName, a fmt.Stringer, printed
 * bare since upstream passes it typed (kubernetes/kubernetes#120592, merged late 2023: taken here as 1.30; 1.29
 * keeps 1.28's quoted string) and until values print as JSON (1.34). Measured: quoted on 1.28 and 1.36, bare on 1.32.
 */
function invalidValue(path: string, name: string, details: readonly string[], version: KubernetesVersion): Issue[] {
  const bare = minorOf(version) >= 30 && minorOf(version) < 34;
  const shown = bare ? name : fieldValue(name, version);
  return details.map((d) => ({ path, message: `Invalid value: ${shown}: ${d}`, value: name }));
}

/** IsQuotaHugePageResourceName. */
const isQuotaHugePages = (name: string) => name.startsWith('hugepages-') || name.startsWith('requests.hugepages-');

/** helper's standardResources (IsStandardResourceName): the containers' set and a volume's `storage`. */
const STANDARD_RESOURCES: ReadonlySet<string> = new Set([...CONTAINER_STANDARD_RESOURCES, 'storage']);

/** helper's standardQuotaResources (IsStandardQuotaResourceName): the standard ones but `storage`. @internal */
export const QUOTA_RESOURCES: ReadonlySet<string> = CONTAINER_STANDARD_RESOURCES;

/** helper's integerResources: object counts (IsIntegerResourceName, with the extended resources). */
const INTEGER_RESOURCES: ReadonlySet<string> = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** IsIntegerResourceName. @internal */
export function isIntegerResource(name: string, version: KubernetesVersion): boolean {
  return INTEGER_RESOURCES.has(name) || isExtended(name, version);
}

/** IsStandardQuotaResourceName. @internal */
export function isQuotaResource(name: string): boolean {
  return QUOTA_RESOURCES.has(name) || isQuotaHugePages(name);
}

/** validateResourceName: a qualified name, and a standard one when it has no domain. @internal */
export function resourceNameIssues(name: string, path: string, version: KubernetesVersion): Issue[] {
  const qualified = invalidValue(path, name, isQualifiedName(name, version), version);
  if (qualified.length > 0) return qualified;
  if (!name.includes('/') && !STANDARD_RESOURCES.has(name) && !isQuotaHugePages(name)) {
    return invalidValue(path, name, ['must be a standard resource type or fully qualified'], version);
  }
  return [];
}

/** validateContainerResourceName (a LimitRange's Pod and Container types). @internal */
export function containerResourceNameIssues(name: string, path: string, version: KubernetesVersion): Issue[] {
  const issues = resourceNameIssues(name, path, version);
  if (!name.includes('/')) {
    if (!['cpu', 'memory', 'ephemeral-storage'].includes(name) && !name.startsWith('hugepages-')) {
      issues.push(...invalidValue(path, name, ['must be a standard resource for containers'], version));
    }
  } else if (!isNative(name) && !isExtended(name, version)) {
    issues.push(...invalidValue(path, name, ["doesn't follow extended resource name standard"], version));
  }
  return issues;
}

/** ValidateResourceQuotaResourceName. @internal */
export function quotaResourceNameIssues(name: string, path: string, version: KubernetesVersion): Issue[] {
  const issues = resourceNameIssues(name, path, version);
  if (!name.includes('/') && !isQuotaResource(name)) {
    issues.push(...invalidValue(path, name, ['must be a standard resource for quota'], version));
  }
  return issues;
}

/** IsOvercommitAllowed: native resources but hugepages. @internal */
export function isOvercommitAllowed(name: string): boolean {
  return isNative(name) && !name.startsWith('hugepages-');
}
