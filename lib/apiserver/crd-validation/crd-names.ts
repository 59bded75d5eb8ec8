import { child, index, invalid, isObject, key, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { isDns1035Label, isDns1123Subdomain } from '../../apimachinery/names';
import { CrdManifest } from '../crd-manifest';

/** The annotation a CRD in a `*.k8s.io` or `*.kubernetes.io` group must carry. */
export const API_APPROVAL_ANNOTATION = 'api-approved.kubernetes.io';

const SCOPES = ['Cluster', 'Namespaced'];

/**
 * Name rules of a CRD, as the apiserver checks them: `metadata.name`, `spec.group`, `spec.scope`,
 * `spec.names` (plural, singular, kind, listKind, shortNames, categories) and the API approval
 * annotation of protected groups.
 */
export function checkCrdNames(manifest: CrdManifest): Issue[] {
  const issues: Issue[] = [];
  const spec: any = isObject(manifest.spec) ? manifest.spec : {};
  const names: any = isObject(spec.names) ? spec.names : {};
  const group: string = typeof spec.group === 'string' ? spec.group : '';

  const name = manifest.metadata?.name ?? '';
  if (!name) {
    issues.push(required('metadata.name', 'name or generateName is required'));
  } else {
    for (const err of isDns1123Subdomain(name)) issues.push(invalid('metadata.name', name, err));
    if (name !== `${names.plural}.${group}`) {
      issues.push(invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
    }
  }

  if (!group) {
    issues.push(required('spec.group'));
  } else {
    const errs = isDns1123Subdomain(group);
    if (errs.length > 0) {
      issues.push(invalid('spec.group', group, errs.join(',')));
    } else if (group.split('.').length < 2) {
      issues.push(invalid('spec.group', group, 'should be a domain with at least one dot'));
    }
  }

  if (!spec.scope) issues.push(required('spec.scope'));
  else if (!SCOPES.includes(spec.scope)) issues.push(notSupported('spec.scope', spec.scope, SCOPES));

  issues.push(...checkNames(names, 'spec.names'));
  issues.push(...checkApiApproval(group, manifest.metadata?.annotations));
  return issues;
}

function checkNames(names: any, path: string): Issue[] {
  const issues: Issue[] = [];
  for (const field of ['plural', 'singular', 'kind', 'listKind']) {
    if (!names[field]) issues.push(required(child(path, field)));
  }
  for (const field of ['plural', 'singular']) {
    const value = names[field];
    if (!value) continue;
    const errs = isDns1035Label(String(value));
    if (errs.length > 0) issues.push(invalid(child(path, field), value, errs.join(',')));
  }
  for (const field of ['kind', 'listKind']) {
    const value = names[field];
    if (!value) continue;
    const errs = isDns1035Label(String(value).toLowerCase());
    if (errs.length > 0) {
      issues.push(
        invalid(child(path, field), value, `may have mixed case, but should otherwise match: ${errs.join(',')}`),
      );
    }
  }
  if (names.kind && names.kind === names.listKind) {
    issues.push(invalid(child(path, 'listKind'), names.listKind, 'kind and listKind may not be the same'));
  }
  for (const field of ['shortNames', 'categories']) {
    const list: unknown[] = Array.isArray(names[field]) ? names[field] : [];
    list.forEach((entry, i) => {
      const errs = isDns1035Label(String(entry));
      if (errs.length > 0) issues.push(invalid(index(child(path, field), i), entry, errs.join(',')));
    });
  }
  return issues;
}

/** Whether a group is reserved for the Kubernetes project. */
export function isProtectedGroup(group: string): boolean {
  return (
    group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io')
  );
}

function checkApiApproval(group: string, annotations: Record<string, string> | undefined): Issue[] {
  if (!isProtectedGroup(group)) return [];
  const path = key('metadata.annotations', API_APPROVAL_ANNOTATION);
  const value = annotations?.[API_APPROVAL_ANNOTATION];
  if (value === undefined) {
    return [
      required(
        path,
        `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  }
  if (value.startsWith('unapproved') || isUrl(value)) return [];
  return [
    invalid(
      path,
      value,
      `protected groups must have approval annotation "${API_APPROVAL_ANNOTATION}" with either a URL or a reason starting with "unapproved"`,
    ),
  ];
}

function isUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
