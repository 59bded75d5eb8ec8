import { nameIssues, obj } from './pod-spec-common';
import { child, key, forbidden, invalid, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A container's resources (ValidateResourceRequirements): resource names, non-negative quantities, integers for
 * extended resources, requests at most the limits (equal for resources that cannot be overcommitted: extended
 * resources and hugepages), hugepages sizes and their need of cpu or memory.
 */

/**
 * IsStandardResourceName's set as a container's resources are checked against it, hugepages aside (`storage`, a
 * volume's, is the quotas' and limit ranges' only: resource-policy-names.ts). @internal
 */
export const STANDARD_RESOURCES: ReadonlySet<string> = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);
const CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

const isHugePages = (name: string) => name.startsWith('hugepages-');
/** IsNativeResource: no domain, or a kubernetes.io one. @internal */
export const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
/** IsExtendedResourceName. @internal */
export const isExtended = (name: string, version: KubernetesVersion) =>
  !isNative(name) && !name.startsWith('requests.') && isQualifiedName(`requests.${name}`, version).length === 0;
const overcommitAllowed = (name: string) => isNative(name) && !isHugePages(name);

function nameIssuesOf(path: string, name: string, version: KubernetesVersion): Issue[] {
  // validateResourceName
  const qualified = nameIssues(path, name, isQualifiedName(name, version));
  const issues = [...qualified];
  if (qualified.length === 0 && !name.includes('/') && !STANDARD_RESOURCES.has(name) && !isHugePages(name)) {
    issues.push(invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  // validateContainerResourceName
  if (!name.includes('/')) {
    if (!CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      issues.push(invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNative(name) && !isExtended(name, version)) {
    issues.push(invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return issues;
}

function parse(value: unknown): Quantity | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && Quantity.isValid(text) ? Quantity.parse(text) : undefined;
}

function quantityIssues(path: string, name: string, text: unknown, q: Quantity, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  if (q.sign() < 0n) issues.push(invalid(path, text, 'must be greater than or equal to 0'));
  if (isExtended(name, version) && !q.isInteger()) issues.push(invalid(path, text, 'must be an integer'));
  if (isHugePages(name)) {
    const size = parse(name.slice('hugepages-'.length));
    const divisible =
      size !== undefined &&
      size.sign() > 0n &&
      q.isInteger() &&
      size.isInteger() &&
      q.asInteger() % size.asInteger() === 0n;
    if (!divisible) issues.push(invalid(path, text, `${String(text)} is not positive integer multiple of ${name}`));
  }
  return issues;
}

/**
 * ValidateResourceRequirements of a container at `path` (`…containers[0].resources`). `requestsFromLimits`: a Pod's
 * defaults copy each limit without a request into the requests (SetDefaults_Pod; a pod template is not defaulted so).
 *
 * @internal
 */
export function resourcesIssues(
  path: string,
  resources: unknown,
  version: KubernetesVersion,
  requestsFromLimits: boolean,
): Issue[] {
  const r = obj(resources);
  const limits = obj(r.limits);
  const requests = requestsFromLimits ? { ...limits, ...obj(r.requests) } : obj(r.requests);
  const limPath = child(path, 'limits');
  const reqPath = child(path, 'requests');
  const issues: Issue[] = [];
  let cpuOrMemory = false;
  let hugePages = false;
  const parsedLimits = new Map<string, Quantity>();
  for (const [name, text] of Object.entries(limits)) {
    const at = key(limPath, name);
    issues.push(...nameIssuesOf(at, name, version));
    const q = parse(text);
    if (!q) continue; // the decoding refuses it
    parsedLimits.set(name, q);
    issues.push(...quantityIssues(at, name, text, q, version));
    hugePages ||= isHugePages(name);
    cpuOrMemory ||= name === 'cpu' || name === 'memory';
  }
  for (const [name, text] of Object.entries(requests)) {
    const at = key(reqPath, name);
    issues.push(...nameIssuesOf(at, name, version));
    const q = parse(text);
    if (!q) continue;
    issues.push(...quantityIssues(at, name, text, q, version));
    const limit = parsedLimits.get(name);
    if (limit) {
      const cmp = q.compareTo(limit);
      if (cmp !== 0n && !overcommitAllowed(name)) {
        issues.push(invalid(reqPath, text, `must be equal to ${name} limit of ${String(limits[name])}`));
      } else if (cmp > 0n) {
        issues.push(invalid(reqPath, text, `must be less than or equal to ${name} limit of ${String(limits[name])}`));
      }
    } else if (!overcommitAllowed(name)) {
      issues.push(required(limPath, 'Limit must be set for non overcommitable resources'));
    }
    hugePages ||= isHugePages(name);
    cpuOrMemory ||= name === 'cpu' || name === 'memory';
  }
  if (hugePages && !cpuOrMemory) issues.push(forbidden(path, 'HugePages require cpu or memory'));
  return issues;
}
