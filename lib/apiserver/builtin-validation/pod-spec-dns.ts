import { arr, dnsSubdomainIssues, ipIssues, nameIssues, obj, str } from './pod-spec-common';
import { child, index, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A pod's DNS: validateDNSPolicy and validatePodDNSConfig (pkg/apis/core/validation), limits from Linux libc's
 * resolver (MaxDNSNameservers, MaxDNSSearchPaths, MaxDNSSearchListChars).
 */

const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const MAX_NAMESERVERS = 3;
const MAX_SEARCH_PATHS = 32;
const MAX_SEARCH_LIST_CHARS = 2048;

const SUBDOMAIN_WITH_UNDERSCORE = /^_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*$/;
const SUBDOMAIN_WITH_UNDERSCORE_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start " +
  "and end with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')";

/** ValidateDNS1123SubdomainWithUnderScore (IsDNS1123SubdomainWithUnderscore). */
function subdomainWithUnderscoreIssues(path: string, value: string): Issue[] {
  const errs: string[] = [];
  if (new TextEncoder().encode(value).length > 253) errs.push('must be no more than 253 characters');
  if (!SUBDOMAIN_WITH_UNDERSCORE.test(value)) errs.push(SUBDOMAIN_WITH_UNDERSCORE_MSG);
  return nameIssues(path, value, errs);
}

/**
 * A search domain, its trailing dot trimmed. From 1.33 (RelaxedDNSSearchValidation, beta and on) an underscore may
 * start a label or be in one and `.` alone is allowed (measured: 1.36 refuses only `/` and `Ignore` of a list 1.32
 * also refuses `a_b`, `.` and `_x.y` of); 1.33 to 1.35 unmeasured.
 */
function searchIssues(path: string, search: string, version: KubernetesVersion): Issue[] {
  if (minorOf(version) < 33) return dnsSubdomainIssues(path, search.replace(/\.$/, ''));
  return search === '.' ? [] : subdomainWithUnderscoreIssues(path, search.replace(/\.$/, ''));
}

/** validatePodDNSConfig of the dnsConfig at `path` under `policy`. */
function dnsConfigIssues(path: string, raw: unknown, policy: string, version: KubernetesVersion): Issue[] {
  if (policy === 'None') {
    if (raw == null) return [required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (arr(obj(raw).nameservers).length === 0) {
      return [
        required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None'),
      ];
    }
  }
  if (raw == null) return [];
  const config = obj(raw);
  const issues: Issue[] = [];
  const nameservers = arr(config.nameservers);
  if (nameservers.length > MAX_NAMESERVERS) {
    issues.push(
      invalid(child(path, 'nameservers'), nameservers, `must not have more than ${MAX_NAMESERVERS} nameservers`),
    );
  }
  nameservers.forEach((ns, i) => issues.push(...ipIssues(index(child(path, 'nameservers'), i), str(ns), version)));
  const searches = arr(config.searches).map(str);
  const searchesPath = child(path, 'searches');
  if (searches.length > MAX_SEARCH_PATHS) {
    issues.push(invalid(searchesPath, searches, `must not have more than ${MAX_SEARCH_PATHS} search paths`));
  }
  if (searches.join(' ').length > MAX_SEARCH_LIST_CHARS) {
    issues.push(
      invalid(
        searchesPath,
        searches,
        `must not have more than ${MAX_SEARCH_LIST_CHARS} characters (including spaces) in the search list`,
      ),
    );
  }
  searches.forEach((s, i) => issues.push(...searchIssues(index(searchesPath, i), s, version)));
  arr(config.options).forEach((o, i) => {
    if (str(obj(o).name) === '') issues.push(required(index(child(path, 'options'), i), 'must not be empty'));
  });
  return issues;
}

/** The DNS policy and config of the pod spec at `path`, as defaulted (an empty policy is ClusterFirst). @internal */
export function dnsIssues(path: string, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  const policy = spec.dnsPolicy || 'ClusterFirst';
  const issues: Issue[] = [];
  if (!DNS_POLICIES.includes(policy)) issues.push(notSupported(child(path, 'dnsPolicy'), policy, DNS_POLICIES));
  issues.push(...dnsConfigIssues(child(path, 'dnsConfig'), spec.dnsConfig, policy, version));
  return issues;
}
