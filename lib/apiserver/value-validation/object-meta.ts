import { tooLongBytes } from '../../apimachinery/field-error-details';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../apimachinery/names';
import { ResourceScope } from '../crd-manifest';

/** Where an ObjectMeta is checked: the Kubernetes version imitated, and the resource's version (for decode errors). */
export interface ObjectMetaContext {
  /** @default '1.32' */
  readonly kubernetesVersion?: KubernetesVersion;
  /** The apiVersion's version (`v1`), named by a decode error. @default - none */
  readonly resourceVersion?: string;
  /**
   * The kind's name function (ValidateObjectMeta's `nameFn`) for a top-level object: `prefix` for generateName (its
   * own rules for a trailing dash). @default - a DNS-1123 subdomain, as for every custom resource
   */
  readonly nameCheck?: (name: string, prefix: boolean) => string[];
}

const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/**
 * The ObjectMeta checks the apiserver applies to a custom resource on create: known fields only, name (or
 * generateName) a DNS-1123 subdomain, namespace only for namespaced kinds and a DNS-1123 label,
 * label keys/values and annotation keys well-formed, annotations at most 256 KiB.
 *
 * @internal
 */
export function checkObjectMeta(
  meta: Record<string, any>,
  scope: ResourceScope | string,
  kind: string,
  embeddedAt?: string,
  context: ObjectMetaContext = {},
): Issue[] {
  const version = context.kubernetesVersion ?? DEFAULT_KUBERNETES_VERSION;
  const invalid = (path: string, value: unknown, messages: readonly string[]): Issue[] =>
    messages.map((m) => ({ path, message: `Invalid value: ${fieldValue(value, version)}: ${m}`, value }));
  const issues: Issue[] = [];
  const at = embeddedAt ? `${embeddedAt}.metadata` : 'metadata';
  for (const k of Object.keys(meta)) {
    if (!OBJECT_META_FIELDS.has(k)) {
      issues.push({ path: `${at}.${k}`, message: `unknown field "${at}.${k}"`, hint: DROPPED, value: meta[k] });
    }
  }
  const undecodable = decodeErrors(meta);
  // the apiserver cannot decode such metadata: it refuses the object with that one error, before validating anything;
  // in an embedded resource, the error is the metadata's (GetObjectMeta's)
  if (undecodable.length && embeddedAt) {
    return [
      ...issues,
      {
        path: at,
        message: `Invalid value: ${fieldValue(meta, version)}: ${undecodable[0].message}`,
        hint: UNDECODABLE_HINT,
        value: meta,
      },
    ];
  }
  if (undecodable.length) {
    // the whole object is refused: `<Kind> in version "<v>" cannot be handled as a <Kind>: json: cannot unmarshal …`
    return [
      ...issues,
      ...undecodable.map((i) => ({
        ...i,
        message: cannotBeHandled(kind, context.resourceVersion, i.message),
        hint: UNDECODABLE_HINT,
      })),
    ];
  }
  const name = meta.name;
  const generateName = meta.generateName;
  if (!embeddedAt && (name === undefined || name === '') && (generateName === undefined || generateName === '')) {
    issues.push({ path: `${at}.name`, message: 'Required value: name or generateName is required' });
  }
  // the apiserver generates the name before validating (the prefix cut to 58 characters, 5 random ones added);
  // an embedded resource's name is only a path segment (not '.', '..', no '/' or '%')
  const kindCheck = context.nameCheck;
  const nameCheck = embeddedAt
    ? isPathSegmentName
    : kindCheck
      ? (n: string) => kindCheck(n, false)
      : isDns1123Subdomain;
  const stored =
    !embeddedAt && (name === undefined || name === '') && typeof generateName === 'string' && generateName !== ''
      ? generatedName(generateName)
      : name;
  if (typeof stored === 'string' && stored !== '') issues.push(...invalid(`${at}.name`, stored, nameCheck(stored)));
  if (typeof generateName === 'string' && generateName !== '') {
    const prefix = embeddedAt ? generateName : generateName.replace(/-+$/, '') || 'a';
    const messages = embeddedAt
      ? isPathSegmentPrefix(prefix)
      : kindCheck
        ? kindCheck(generateName, true)
        : nameCheck(prefix);
    issues.push(...invalid(`${at}.generateName`, generateName, messages));
  }
  const namespace = meta.namespace;
  if (!embeddedAt && scope === ResourceScope.CLUSTER && namespace !== undefined && namespace !== '') {
    // measured on 1.28, 1.32 and 1.36: a create of a cluster-scoped object carries no namespace in its path, and the
    // apiserver clears the body's (EnsureObjectNamespaceMatchesRequestNamespace), whatever its value: not an error
    issues.push({
      path: 'metadata.namespace',
      severity: 'warning',
      message: `ignored: ${kind} is cluster-scoped, so the apiserver stores it without a namespace (remove the namespace, or set scope: Namespaced on the CRD)`,
      value: namespace,
    });
  } else if (typeof namespace === 'string' && namespace !== '') {
    issues.push(...invalid(`${at}.namespace`, namespace, isDns1123Label(namespace)));
  }
  for (const [k, v] of Object.entries(meta.labels ?? {})) {
    issues.push(...invalid(`${at}.labels`, k, isQualifiedName(k, version)));
    if (typeof v === 'string') issues.push(...invalid(`${at}.labels`, v, isValidLabelValue(v, version)));
  }
  for (const f of Array.isArray(meta.finalizers) ? meta.finalizers : []) {
    if (typeof f === 'string') issues.push(...invalid(`${at}.finalizers`, f, isQualifiedName(f, version)));
  }
  let annotationBytes = 0;
  for (const [k, v] of Object.entries(meta.annotations ?? {})) {
    // ValidateAnnotations checks the key lower-cased (measured: `A.com/b` is accepted by 1.28, 1.32 and 1.36)
    issues.push(...invalid(`${at}.annotations`, k, isQualifiedName(k.toLowerCase(), version)));
    annotationBytes += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  }
  if (annotationBytes > 262144) {
    issues.push({ path: `${at}.annotations`, message: tooLongBytes(262144, version), value: annotationBytes });
  }
  return issues;
}

const DROPPED = 'the apiserver would drop it';
/** @internal */
export const UNDECODABLE_HINT = 'the apiserver cannot decode the object';

/**
 * The message a decode of ObjectMeta fails with (Go's encoding/json).
 *
 * @internal
 */
export const UNDECODABLE = 'json: cannot unmarshal';

const STRING_FIELDS = ['name', 'generateName', 'namespace'];
const STRING_MAPS = ['labels', 'annotations'];

/** Fields of another JSON type than ObjectMeta's Go types: encoding/json's first error (strings and string maps). */
function decodeErrors(meta: Record<string, unknown>): Issue[] {
  const wrong = (path: string, goField: string, v: unknown, goType: string): Issue[] => [
    {
      path,
      value: v,
      message: `${UNDECODABLE} ${jsonTypeName(v)} into Go struct field ObjectMeta.${goField} of type ${goType}`,
    },
  ];
  for (const k of STRING_FIELDS) {
    if (meta[k] !== undefined && meta[k] !== null && typeof meta[k] !== 'string') {
      return wrong(`metadata.${k}`, k, meta[k], 'string');
    }
  }
  for (const k of STRING_MAPS) {
    const m = meta[k];
    if (m === undefined || m === null) continue;
    if (typeof m !== 'object' || Array.isArray(m)) return wrong(`metadata.${k}`, k, m, 'map[string]string');
    for (const [key, v] of Object.entries(m)) {
      if (v !== null && typeof v !== 'string') return wrong(`metadata.${k}[${key}]`, k, v, 'string');
    }
  }
  const f = meta.finalizers;
  if (f !== undefined && f !== null) {
    if (!Array.isArray(f)) return wrong('metadata.finalizers', 'finalizers', f, '[]string');
    for (const v of f) {
      if (v !== null && typeof v !== 'string') return wrong('metadata.finalizers', 'finalizers', v, 'string');
    }
  }
  return [];
}

/**
 * The name the apiserver generates from `generateName` before it validates an object: the prefix cut to 58
 * characters and 5 random lower-case letters and digits, for which `x2b4z` stands in (a message naming the name
 * shows other letters than the server's).
 *
 * @internal
 */
export function generatedName(generateName: string): string {
  return `${generateName.slice(0, 58)}x2b4z`;
}

/**
 * Why metadata does not decode as ObjectMeta (Go's encoding/json), or undefined.
 *
 * @internal
 */
export function objectMetaDecodeError(meta: unknown): string | undefined {
  if (meta === null || meta === undefined) return undefined;
  if (typeof meta !== 'object' || Array.isArray(meta)) {
    return `${UNDECODABLE} ${jsonTypeName(meta)} into Go value of type v1.ObjectMeta`;
  }
  return decodeErrors(meta as Record<string, unknown>)[0]?.message;
}

/**
 * The apiserver's message for an object it cannot decode: `<Kind> in version "<v>" cannot be handled as a <Kind>: …`.
 *
 * @internal
 */
export function cannotBeHandled(kind: string, resourceVersion: string | undefined, error: string): string {
  return `${kind} in version ${JSON.stringify(resourceVersion ?? '')}${CANNOT_BE_HANDLED}${kind}: ${error}`;
}

/** What every decode error's message has. @internal */
export const CANNOT_BE_HANDLED = ' cannot be handled as a ';

function jsonTypeName(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v;
}

/** apimachinery's path.IsValidPathSegmentName. */
function isPathSegmentName(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return isPathSegmentPrefix(name);
}

/** apimachinery's path.IsValidPathSegmentPrefix. */
function isPathSegmentPrefix(name: string): string[] {
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}
