/*
 * Name checks of k8s.io/apimachinery that names.ts does not have (or words otherwise), as the built-in kinds of this
 * area use them: path segments (HPA references, Ingress resource backends), wildcard hosts (Ingress).
 */

const WILDCARD_SUBDOMAIN = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const WILDCARD_MESSAGE =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower " +
  "case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used " +
  "for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

/** path.IsValidPathSegmentName: not `.` or `..`, no `/` or `%`. @internal */
export function pathSegmentNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

/** IsWildcardDNS1123Subdomain: `*.` then a DNS subdomain. @internal */
export function wildcardSubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!WILDCARD_SUBDOMAIN.test(value)) errs.push(WILDCARD_MESSAGE);
  return errs;
}
