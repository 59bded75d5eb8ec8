import { checkObjectMeta } from './object-meta';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';
import { isDns1035Label } from '../../apimachinery/names';

/**
 * An embedded resource's TypeMeta and ObjectMeta, as apiextensions' objectmeta.validateEmbeddedResource checks them:
 * apiVersion and kind required strings (apiVersion a group/version, kind a DNS-1035 label but for its case), and
 * metadata as ObjectMeta (no name required; a name is a path segment; labels, annotations, finalizers as usual).
 *
 * @internal
 */
export function checkEmbeddedResource(
  v: Record<string, unknown>,
  path: string,
  version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
): Issue[] {
  const issues: Issue[] = [];
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const required = since(version, 'embeddedRequiredWithoutDetail')
    ? 'Required value'
    : 'Required value: must not be empty';
  const apiVersion = v.apiVersion;
  // absent: required; present but empty: invalid (objectmeta.validateEmbeddedResource)
  if (apiVersion === undefined) {
    issues.push({ path: at('apiVersion'), message: required });
  } else if (apiVersion === '') {
    issues.push({ path: at('apiVersion'), message: 'Invalid value: "": must not be empty', value: apiVersion });
  } else if (typeof apiVersion !== 'string') {
    issues.push({
      path: at('apiVersion'),
      message: `Invalid value: ${fieldValue(apiVersion, version)}: must be a string`,
      value: apiVersion,
    });
  } else if (apiVersion !== '/' && apiVersion.split('/').length > 2) {
    issues.push({
      path: at('apiVersion'),
      message: `Invalid value: ${fieldValue(apiVersion, version)}: unexpected GroupVersion string: ${apiVersion}`,
      value: apiVersion,
    });
  }
  const kind = v.kind;
  if (kind === undefined) {
    issues.push({ path: at('kind'), message: required });
  } else if (kind === '') {
    issues.push({ path: at('kind'), message: 'Invalid value: "": must not be empty', value: kind });
  } else if (typeof kind !== 'string') {
    issues.push({
      path: at('kind'),
      message: `Invalid value: ${fieldValue(kind, version)}: must be a string`,
      value: kind,
    });
  } else {
    const errs = isDns1035Label(kind.toLowerCase());
    if (errs.length) {
      issues.push({
        path: at('kind'),
        message: `Invalid value: ${fieldValue(kind, version)}: may have mixed case, but should otherwise match: ${errs.join(',')}`,
        value: kind,
      });
    }
  }
  const meta = v.metadata;
  if (meta !== undefined && meta !== null) {
    if (typeof meta !== 'object' || Array.isArray(meta)) {
      issues.push({
        path: at('metadata'),
        message: `Invalid value: ${fieldValue(meta, version)}: metadata must be an object`,
        value: meta,
      });
    } else {
      issues.push(
        ...checkObjectMeta(meta as Record<string, unknown>, 'Namespaced', '', path, { kubernetesVersion: version }),
      );
    }
  }
  return issues;
}
