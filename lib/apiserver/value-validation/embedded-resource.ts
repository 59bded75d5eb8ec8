import { isDns1035Label } from '../../apimachinery/names';
import { Issue } from '../../apimachinery/issue';
import { checkObjectMeta } from './object-meta';

/**
 * An embedded resource's TypeMeta and ObjectMeta, as apiextensions' objectmeta.validateEmbeddedResource checks them:
 * apiVersion and kind required strings (apiVersion a group/version, kind a DNS-1035 label but for its case), and
 * metadata as ObjectMeta (no name required; a name is a path segment; labels, annotations, finalizers as usual).
 *
 * @internal
 */
export function checkEmbeddedResource(v: Record<string, unknown>, path: string): Issue[] {
  const issues: Issue[] = [];
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const apiVersion = v.apiVersion;
  if (apiVersion === undefined || apiVersion === '') issues.push({ path: at('apiVersion'), message: 'Required value' });
  else if (typeof apiVersion !== 'string') issues.push({ path: at('apiVersion'), message: `Invalid value: ${JSON.stringify(apiVersion)}: must be a string`, value: apiVersion });
  else if (apiVersion !== '/' && apiVersion.split('/').length > 2) {
    issues.push({ path: at('apiVersion'), message: `Invalid value: ${JSON.stringify(apiVersion)}: unexpected GroupVersion string: ${apiVersion}`, value: apiVersion });
  }
  const kind = v.kind;
  if (kind === undefined || kind === '') issues.push({ path: at('kind'), message: 'Required value' });
  else if (typeof kind !== 'string') issues.push({ path: at('kind'), message: `Invalid value: ${JSON.stringify(kind)}: must be a string`, value: kind });
  else {
    const errs = isDns1035Label(kind.toLowerCase());
    if (errs.length) issues.push({ path: at('kind'), message: `Invalid value: ${JSON.stringify(kind)}: may have mixed case, but should otherwise match: ${errs.join(',')}`, value: kind });
  }
  const meta = v.metadata;
  if (meta !== undefined && meta !== null) {
    if (typeof meta !== 'object' || Array.isArray(meta)) {
      issues.push({ path: at('metadata'), message: `Invalid value: ${JSON.stringify(meta)}: metadata must be an object`, value: meta });
    } else {
      issues.push(...checkObjectMeta(meta as Record<string, unknown>, 'Namespaced', '', path));
    }
  }
  return issues;
}
