import { ResourceScope } from '../apiserver/crd-manifest';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../apimachinery/names';
import { Issue } from '../apimachinery/issue';

const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

/**
 * The ObjectMeta checks the apiserver applies to a custom resource on create: known fields only, name (or
 * generateName) a DNS-1123 subdomain, namespace only for namespaced kinds and a DNS-1123 label,
 * label keys/values and annotation keys well-formed, annotations at most 256 KiB.
 *
 * @internal
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
  if (typeof name === 'string' && name !== '') issues.push(...invalid('metadata.name', name, isDns1123Subdomain(name)));
  if (typeof generateName === 'string' && generateName !== '') {
    const prefix = generateName.replace(/-+$/, '') || 'a';
    issues.push(...invalid('metadata.generateName', generateName, isDns1123Subdomain(prefix)));
  }
  const namespace = meta.namespace;
  if (scope === ResourceScope.CLUSTER && namespace !== undefined && namespace !== '') {
    issues.push({
      path: 'metadata.namespace',
      message: `Forbidden: not allowed on this type: ${kind} is cluster-scoped (remove the namespace, or set scope: Namespaced on the CRD)`,
      value: namespace,
    });
  } else if (typeof namespace === 'string' && namespace !== '') {
    issues.push(...invalid('metadata.namespace', namespace, isDns1123Label(namespace)));
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    issues.push(...invalid('metadata.labels', k, isQualifiedName(k)));
    issues.push(...invalid('metadata.labels', v, typeof v === 'string' ? isValidLabelValue(v) : ['must be a string']));
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    issues.push(...invalid('metadata.annotations', k, isQualifiedName(k)));
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (annotationBytes > 262144) {
    issues.push({ path: 'metadata.annotations', message: 'Too long: must have at most 262144 bytes', value: annotationBytes });
  }
  return issues;
}

/** One `Invalid value` issue per apimachinery message. */
function invalid(path: string, value: unknown, messages: readonly string[]): Issue[] {
  return messages.map(m => ({ path, message: `Invalid value: ${JSON.stringify(value)}: ${m}`, value }));
}
