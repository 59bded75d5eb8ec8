import { resourceClaimNamesIssues } from './pod-spec-claims';
import { arr, obj } from './pod-spec-common';
import { resourcesIssues, STANDARD_RESOURCES } from './pod-spec-resources';
import { canonicalQuantity, quantityMilliValue, quantityText, quantityValue } from './resource-policy-quantity';
import { child, forbidden, index, invalid, key, notSupported } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * Pod-level resources (spec.resources, PodLevelResources; validatePodResources): checked from 1.34, where the gate is
 * on (1.32 drops the field, measured; 1.33 unmeasured). A Pod is checked as SetDefaults_Pod leaves it: its
 * containers' limits copied into missing requests, then its pod-level requests defaulted when it has pod-level limits
 * (defaultPodRequests); its defaults of pod-level limits (defaultHugePagePodLimits, defaultPodLimits) are not imitated.
 */

const SUPPORTED = ['cpu', 'hugepages-', 'memory'];
const isSupported = (name: string) => name === 'cpu' || name === 'memory' || name.startsWith('hugepages-');
/** The messages of validateContainerResourceName that validatePodResourceName has not. */
const CONTAINER_ONLY = ['must be a standard resource for containers', "doesn't follow extended resource name standard"];

/**
 * validatePodResourceName: validateResourceName's checks, then NotSupported for a resource other than cpu, memory and
 * hugepages (the rest of ValidateResourceRequirements is a container's, resourcesIssues, less its container names).
 */
function requirementsIssues(path: string, r: Record<string, any>, version: KubernetesVersion): Issue[] {
  const issues = resourcesIssues(path, { limits: r.limits, requests: r.requests }, version, false).filter(
    (i) => !CONTAINER_ONLY.some((m) => i.message === `Invalid value: ${m}`),
  );
  for (const [field, list] of [
    ['limits', r.limits],
    ['requests', r.requests],
  ] as const) {
    for (const name of Object.keys(obj(list))) {
      const named = isQualifiedName(name, version).length === 0;
      const standard = name.includes('/') || STANDARD_RESOURCES.has(name) || name.startsWith('hugepages-');
      if (named && standard && !isSupported(name)) {
        issues.push(notSupported(key(child(path, field), name), name, SUPPORTED));
      }
    }
  }
  return issues;
}

/** A quantity with the texts it sums, shown as Go's String() of the sum (the first addend's format). */
interface Sum {
  readonly q: Quantity;
  readonly texts: readonly string[];
}

function sumOf(texts: readonly string[]): Sum | undefined {
  const qs = texts.map((t) => Quantity.parse(t));
  return qs.length === 0 ? undefined : { q: qs.slice(1).reduce((a, b) => a.add(b), qs[0]), texts };
}

/**
 * Go's String() of a sum: a binary first addend (`64Mi`) keeps the sum in bytes, a decimal one in thousandths (the
 * precision of a pod's requests; finer ones are rounded up by quantityMilliValue).
 */
function shown(sum: Sum): string {
  if (/[KMGTPE]i$/.test(sum.texts[0])) {
    const bytes = sum.texts.reduce((t, x) => t + quantityValue(x), 0n);
    return canonicalQuantity(bytes % 1024n === 0n ? `${bytes / 1024n}Ki` : `${bytes}`);
  }
  return canonicalQuantity(`${sum.texts.reduce((t, x) => t + quantityMilliValue(x), 0n)}m`);
}

/** AggregateContainerRequests: the containers' sum, or an init container's (with the sidecars before it) if more. */
function aggregateRequests(spec: Record<string, any>): Map<string, Sum> {
  const add = (into: Map<string, Sum>, list: unknown) => {
    for (const [n, v] of Object.entries(obj(list))) {
      const text = quantityText(v);
      const sum = text === undefined ? undefined : sumOf([...(into.get(n)?.texts ?? []), text]);
      if (sum) into.set(n, sum);
    }
  };
  const max = (into: Map<string, Sum>, from: Map<string, Sum>) => {
    for (const [n, s] of from) if (!into.has(n) || s.q.compareTo(into.get(n)!.q) > 0n) into.set(n, s);
  };
  const total = new Map<string, Sum>();
  for (const c of arr(spec.containers)) add(total, obj(obj(c).resources).requests);
  const sidecars = new Map<string, Sum>();
  const init = new Map<string, Sum>();
  for (const c of arr(spec.initContainers)) {
    const requests = obj(obj(c).resources).requests;
    if (obj(c).restartPolicy === 'Always') {
      add(total, requests);
      add(sidecars, requests);
      max(init, sidecars);
    } else {
      const own = new Map(sidecars);
      add(own, requests);
      max(init, own);
    }
  }
  max(total, init);
  return total;
}

/**
 * validatePodResourceConsistency: each pod-level request at least the containers' aggregate (measured on 1.36: only
 * the resources the pod requests are compared), each container's limit at most the pod's.
 */
function consistencyIssues(path: string, spec: Record<string, any>, r: Record<string, any>): Issue[] {
  const issues: Issue[] = [];
  const requests = obj(r.requests);
  for (const [name, total] of aggregateRequests(spec)) {
    const text = name in requests ? quantityText(requests[name]) : undefined;
    if (text !== undefined && total.q.compareTo(Quantity.parse(text)) > 0n) {
      issues.push(
        invalid(
          key(child(path, 'requests'), name),
          canonicalQuantity(text),
          `must be greater than or equal to aggregate container requests of ${shown(total)}`,
        ),
      );
    }
  }
  const limits = obj(r.limits);
  arr(spec.containers).forEach((c, i) => {
    for (const [name, v] of Object.entries(obj(obj(obj(c).resources).limits))) {
      const own = quantityText(v);
      const pod = name in limits ? quantityText(limits[name]) : undefined;
      if (own !== undefined && pod !== undefined && Quantity.parse(own).compareTo(Quantity.parse(pod)) > 0n) {
        issues.push(
          invalid(
            child(key(index(child(path, 'containers'), i), name), 'limits'),
            canonicalQuantity(own),
            `must be less than or equal to pod limits of ${canonicalQuantity(pod)}`,
          ),
        );
      }
    }
  });
  return issues;
}

/** A Pod's containers with their limits copied into missing requests (SetDefaults_Pod). */
function withContainerDefaults(spec: Record<string, any>): Record<string, any> {
  const defaulted = (c: unknown) => {
    const resources = obj(obj(c).resources);
    if (resources.limits == null) return c;
    return {
      ...obj(c),
      resources: { ...resources, requests: { ...obj(resources.limits), ...obj(resources.requests) } },
    };
  };
  return {
    ...spec,
    containers: arr(spec.containers).map(defaulted),
    initContainers: arr(spec.initContainers).map(defaulted),
  };
}

/**
 * defaultPodRequests: with pod-level limits, each missing pod-level request of cpu or memory the containers request is
 * their aggregate, and each other missing one of a pod-level limit that limit.
 */
function withPodRequests(spec: Record<string, any>, r: Record<string, any>): Record<string, any> {
  if (Object.keys(obj(r.limits)).length === 0) return r;
  const requests: Record<string, unknown> = { ...obj(r.requests) };
  for (const [name, total] of aggregateRequests(spec)) {
    if (!(name in requests) && (name === 'cpu' || name === 'memory')) requests[name] = shown(total);
  }
  for (const [name, limit] of Object.entries(obj(r.limits))) {
    if (!(name in requests) && isSupported(name)) requests[name] = limit;
  }
  return { ...r, requests };
}

/**
 * validatePodResources of the pod spec's `resources` (`path`: `spec.resources`); `pod`: a Pod's spec, defaulted as
 * SetDefaults_Pod does.
 *
 * @internal
 */
export function podResourcesIssues(
  path: string,
  raw: Record<string, any>,
  podClaims: ReadonlySet<string>,
  version: KubernetesVersion,
  pod: boolean,
): Issue[] {
  if (minorOf(version) < 34 || raw.resources == null) return [];
  const spec = pod ? withContainerDefaults(raw) : raw;
  const r = pod ? withPodRequests(spec, obj(raw.resources)) : obj(raw.resources);
  const issues: Issue[] = [];
  // 1.36's wording (measured; upstream's newest says `cannot be set`)
  if (r.claims != null) {
    issues.push(forbidden(child(path, 'claims'), 'claims may not be set for Resources at pod-level'));
  }
  issues.push(...requirementsIssues(path, r, version));
  issues.push(...resourceClaimNamesIssues(child(path, 'claims'), r.claims, podClaims));
  issues.push(...consistencyIssues(path, spec, r));
  return issues;
}
