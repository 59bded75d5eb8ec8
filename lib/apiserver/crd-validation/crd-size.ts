import { tooLong, warning } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { CrdManifest } from '../crd-manifest';

/** etcd's default request limit (1.5 MiB): a bigger object fails with "etcdserver: request is too large". */
export const MAX_CRD_BYTES = 1572864;
/** All annotations of an object together (`metadata.annotations: Too long: must have at most 262144 bytes`). */
export const MAX_ANNOTATION_BYTES = 262144;
/** The annotation client-side `kubectl apply` stores the whole applied object in. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Serialized size of a manifest in bytes, as JSON (the form sent to the apiserver). */
export function manifestBytes(manifest: unknown): number {
  return Buffer.byteLength(JSON.stringify(manifest), 'utf8');
}

/**
 * Annotation bytes after a client-side `kubectl apply`: the existing annotations plus the
 * last-applied annotation holding the object itself (as JSON with a trailing newline).
 * `bytes`, the manifest's own serialized size when the caller has it, saves serializing it again.
 */
export function lastAppliedAnnotationBytes(manifest: CrdManifest, bytes = manifestBytes(manifest)): number {
  const annotations: Record<string, string> = { ...(manifest.metadata?.annotations ?? {}) };
  delete annotations[LAST_APPLIED_ANNOTATION];
  const metadata = { ...manifest.metadata, annotations };
  let total = 0;
  for (const [k, v] of Object.entries(annotations)) {
    total += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(String(v), 'utf8');
  }
  // the applied object differs from the manifest only in its metadata, which keeps its place among the keys
  const appliedBytes =
    manifest.metadata === undefined
      ? manifestBytes({ ...manifest, metadata })
      : bytes - manifestBytes(manifest.metadata) + manifestBytes(metadata);
  return total + Buffer.byteLength(LAST_APPLIED_ANNOTATION, 'utf8') + appliedBytes + 1;
}

/**
 * Size limits: an error when the CRD cannot be stored at all (>= 1.5 MiB), a warning when a
 * client-side `kubectl apply` would exceed the 256 KiB annotation limit.
 */
export function checkCrdSize(manifest: CrdManifest): Issue[] {
  const issues: Issue[] = [];
  const bytes = manifestBytes(manifest);
  if (bytes >= MAX_CRD_BYTES) {
    issues.push(
      tooLong(
        'spec',
        `the CustomResourceDefinition serializes to ${bytes} bytes, etcd rejects objects of ${MAX_CRD_BYTES} bytes (1.5 MiB) ` +
          'or more ("etcdserver: request is too large"); shrink it with the stripDescriptions option or split the schema',
      ),
    );
  }
  const annotationBytes = lastAppliedAnnotationBytes(manifest, bytes);
  if (annotationBytes > MAX_ANNOTATION_BYTES) {
    issues.push(
      warning(
        tooLong(
          'metadata.annotations',
          `client-side "kubectl apply" would store ${annotationBytes} bytes of annotations ` +
            `(${LAST_APPLIED_ANNOTATION}), more than the ${MAX_ANNOTATION_BYTES} bytes allowed; apply it with "kubectl apply --server-side" ` +
            "or drop schema descriptions with the stripDescriptions option (e.g. stripDescriptions: ['*'])",
        ),
      ),
    );
  }
  return issues;
}
