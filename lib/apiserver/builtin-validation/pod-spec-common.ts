import { ipErrors, NOT_AN_IP } from './networking-ip';
import { portNameErrors, portNumberErrors } from './ports';
import { child, index, invalid, isObject } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../apimachinery/names';

/*
 * Small checks shared by the pod spec's parts (pkg/apis/core/validation), each in the apiserver's words.
 */

/** An object field, or an empty object, so that a part of the spec can be read without guards. @internal */
export function obj(value: unknown): Record<string, any> {
  return isObject(value) ? (value as Record<string, any>) : {};
}

/** An array field, or an empty array. @internal */
export function arr(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}

/** A string field, or `''` (the apiserver's zero value). @internal */
export function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** `Invalid value` once per message of a name check (ValidateDNS1123Label and its kin). @internal */
export function nameIssues(path: string, value: string, messages: readonly string[]): Issue[] {
  return messages.map((m) => invalid(path, value, m));
}

/** ValidateDNS1123Label. @internal */
export function dnsLabelIssues(path: string, value: string): Issue[] {
  return nameIssues(path, value, isDns1123Label(value));
}

/** ValidateDNS1123Subdomain (ValidateNodeName, ValidateServiceAccountName, ValidateConfigMapName...). @internal */
export function dnsSubdomainIssues(path: string, value: string): Issue[] {
  return nameIssues(path, value, isDns1123Subdomain(value));
}

/** A name that must be a DNS subdomain when set. @internal */
export function optionalSubdomainIssues(path: string, value: unknown): Issue[] {
  return typeof value === 'string' && value !== '' ? dnsSubdomainIssues(path, value) : [];
}

/** ValidateLabels: every error at the map's own path (`spec.template.labels`, `nodeSelector`). @internal */
export function labelsIssues(path: string, labels: unknown, version: KubernetesVersion): Issue[] {
  return Object.entries(obj(labels)).flatMap(([k, v]) => [
    ...nameIssues(path, k, isQualifiedName(k, version)),
    ...nameIssues(path, String(v), isValidLabelValue(String(v), version)),
  ]);
}

/** ValidateAnnotations' key check (lower-cased, as upstream checks them). @internal */
export function annotationKeysIssues(path: string, annotations: unknown, version: KubernetesVersion): Issue[] {
  return Object.keys(obj(annotations)).flatMap((k) => nameIssues(path, k, isQualifiedName(k.toLowerCase(), version)));
}

/** ValidatePortNumOrName: an httpGet or tcpSocket port, a number or the name of a container port. @internal */
export function portNumOrNameIssues(path: string, port: unknown): Issue[] {
  // an IntOrString left out decodes as the number 0; a string (even "8080") is a port name
  if (port == null) return portNumberErrors(0).map((m) => invalid(path, 0, m));
  if (typeof port === 'number') return portNumberErrors(port).map((m) => invalid(path, port, m));
  if (typeof port === 'string') return portNameErrors(port).map((m) => invalid(path, port, m));
  return [];
}

/**
 * IsValidIP (a pod's hostAliases and DNS nameservers): networking-ip.ts's parse (leading zeros tolerated up to 1.35,
 * refused from 1.36 with IPv4-mapped addresses; zones never), in the wording of `version` (the example appeared
 * between 1.28 and 1.32; measured on both). @internal
 */
export function ipIssues(path: string, value: string, version: KubernetesVersion): Issue[] {
  return ipErrors(value, version).map((e) =>
    invalid(path, value, e === NOT_AN_IP && minorOf(version) < 32 ? 'must be valid IP address' : e),
  );
}

/** A 32-bit id (runAsUser, runAsGroup, fsGroup, supplementalGroups): ValidateLinuxID's range. @internal */
export function linuxIdIssues(path: string, value: unknown): Issue[] {
  if (typeof value !== 'number' || (value >= 0 && value <= 2147483647)) return [];
  return [invalid(path, value, 'must be between 0 and 2147483647, inclusive')];
}

/** ValidateNonnegativeField. @internal */
export function nonNegativeIssues(path: string, value: unknown): Issue[] {
  return typeof value === 'number' && value < 0 ? [invalid(path, value, 'must be greater than or equal to 0')] : [];
}

/** `Not found: "x"` (field.NotFound). @internal */
export function notFound(path: string, value: unknown): Issue {
  return { path, message: 'Not found', value };
}

/** validateLocalDescendingPath: relative, without `..` (subPath, volume item paths). @internal */
export function localDescendingPathIssues(path: string, value: string): Issue[] {
  const issues: Issue[] = [];
  if (value.startsWith('/')) issues.push(invalid(path, value, 'must be a relative path'));
  issues.push(...noBackstepsIssues(path, value));
  return issues;
}

/** validatePathNoBacksteps. @internal */
export function noBackstepsIssues(path: string, value: string): Issue[] {
  return hasBacksteps(value) ? [invalid(path, value, "must not contain '..'")] : [];
}

/**
 * validatePathNoBacksteps' test: a `..` between slashes. filepath.ToSlash changes nothing on Linux, where the apiserver
 * runs: a backslash is no separator (`a\..\b` measured accepted by 1.28, 1.32 and 1.36 as a subPath, a volume's path
 * and a seccomp profile). @internal
 */
export function hasBacksteps(value: string): boolean {
  return value.split('/').includes('..');
}

/**
 * Each container of the spec at `specPath` with its path, as upstream's VisitContainersWithPath visits them: init
 * containers, containers, ephemeral ones. @internal
 */
export function containersWithPath(specPath: string, spec: Record<string, any>): Array<[Record<string, any>, string]> {
  return ['initContainers', 'containers', 'ephemeralContainers'].flatMap((field) =>
    arr(spec[field]).map((c, i): [Record<string, any>, string] => [obj(c), index(child(specPath, field), i)]),
  );
}
