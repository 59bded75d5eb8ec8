import { ResourceScope } from '../crd/crd-spec';
import { Issue } from '../validation/issue';

const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

const SUBDOMAIN_HINT = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
  + "with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_HINT = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an "
  + "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/**
 * The ObjectMeta checks the apiserver applies to a custom resource on create: known fields only, name (or
 * generateName) a DNS-1123 subdomain, namespace only for namespaced kinds and a DNS-1123 label,
 * label keys/values and annotation keys well-formed, annotations at most 256 KiB.
 */
export function checkObjectMeta(meta: Record<string, any>, scope: ResourceScope, kind: string): Issue[] {
  const issues: Issue[] = [];
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) issues.push({ path: `metadata.${k}`, message: `unknown field "metadata.${k}" (the apiserver would drop it)`, value: meta[k] });
  }
  const name = meta.name;
  const generateName = meta.generateName;
  if ((name === undefined || name === '') && (generateName === undefined || generateName === '')) {
    issues.push({ path: 'metadata.name', message: 'Required value: name or generateName is required' });
  }
  if (typeof name === 'string' && name !== '') issues.push(...subdomain('metadata.name', name));
  if (typeof generateName === 'string' && generateName !== '') {
    issues.push(...subdomain('metadata.generateName', generateName.replace(/-+$/, '') || 'a'));
  }
  const namespace = meta.namespace;
  if (scope === ResourceScope.CLUSTER && namespace !== undefined && namespace !== '') {
    issues.push({
      path: 'metadata.namespace',
      message: `Forbidden: not allowed on this type: ${kind} is cluster-scoped (remove the namespace, or set scope: Namespaced on the CRD)`,
      value: namespace,
    });
  } else if (typeof namespace === 'string' && namespace !== '') {
    if (namespace.length > 63 || !new RegExp(`^${DNS1123_LABEL}$`).test(namespace)) {
      issues.push({ path: 'metadata.namespace', message: `Invalid value: ${JSON.stringify(namespace)}: ${LABEL_HINT}`, value: namespace });
    }
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    issues.push(...qualifiedName(`metadata.labels`, k));
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      issues.push({
        path: `metadata.labels`,
        message: `Invalid value: ${JSON.stringify(v)}: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', `
          + 'and must start and end with an alphanumeric character, at most 63 characters',
        value: v,
      });
    }
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    issues.push(...qualifiedName('metadata.annotations', k));
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (annotationBytes > 262144) {
    issues.push({ path: 'metadata.annotations', message: 'Too long: must have at most 262144 bytes', value: annotationBytes });
  }
  return issues;
}

function subdomain(path: string, value: string): Issue[] {
  const issues: Issue[] = [];
  if (value.length > 253) issues.push({ path, message: `Invalid value: ${JSON.stringify(value)}: must be no more than 253 characters`, value });
  if (!DNS1123_SUBDOMAIN.test(value)) issues.push({ path, message: `Invalid value: ${JSON.stringify(value)}: ${SUBDOMAIN_HINT}`, value });
  return issues;
}

/** Label and annotation keys: `[prefix/]name`, prefix a DNS-1123 subdomain, name at most 63 characters. */
function qualifiedName(path: string, key: string): Issue[] {
  const parts = key.split('/');
  const name = parts.length === 2 ? parts[1] : parts[0];
  const prefix = parts.length === 2 ? parts[0] : undefined;
  const ok = parts.length <= 2 && name.length <= 63 && QUALIFIED_NAME.test(name)
    && (prefix === undefined || (prefix.length <= 253 && DNS1123_SUBDOMAIN.test(prefix)));
  if (ok) return [];
  return [{
    path,
    message: `Invalid value: ${JSON.stringify(key)}: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with `
      + "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc'), with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    value: key,
  }];
}
