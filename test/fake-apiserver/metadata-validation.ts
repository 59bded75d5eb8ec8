/** ObjectMeta validation shared by every resource (apimachinery ValidateObjectMeta): labels, annotations, finalizers, ownerReferences. */
import { isObject } from './json-util';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../lib/apimachinery/names';
import { StatusCause, fieldInvalid, formatValue } from './status';

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export interface MetadataCheck {
  readonly causes: StatusCause[];
  readonly warnings: string[];
}

export function validateObjectMeta(meta: any, custom: boolean): MetadataCheck {
  const causes: StatusCause[] = [];
  const warnings: string[] = [];
  if (isObject(meta.labels)) {
    for (const [k, v] of Object.entries(meta.labels)) {
      for (const e of isQualifiedName(k)) causes.push(fieldInvalid('metadata.labels', k, e));
      const value = String(v ?? '');
      for (const e of isValidLabelValue(value)) causes.push(fieldInvalid('metadata.labels', value, e));
    }
  }
  if (isObject(meta.annotations)) {
    let total = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      for (const e of isQualifiedName(k.toLowerCase())) causes.push(fieldInvalid('metadata.annotations', k, e));
      total += k.length + String(v ?? '').length;
    }
    if (total > 256 * 1024) causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${256 * 1024} bytes`, field: 'metadata.annotations' });
  }
  (Array.isArray(meta.finalizers) ? meta.finalizers : []).forEach((f: any, i: number) => {
    for (const e of isQualifiedName(String(f))) causes.push(fieldInvalid(`metadata.finalizers[${i}]`, f, e));
    if (custom && !STANDARD_FINALIZERS.has(f) && !String(f).includes('/')) {
      warnings.push(`metadata.finalizers: ${formatValue(f)}: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers`);
    }
  });
  const refs: any[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  for (const r of refs) {
    if (!r?.apiVersion) causes.push(fieldInvalid('metadata.ownerReferences.apiVersion', '', 'version must not be empty'));
    if (!r?.kind) causes.push(fieldInvalid('metadata.ownerReferences.kind', '', 'kind must not be empty'));
    if (!r?.name) causes.push(fieldInvalid('metadata.ownerReferences.name', '', 'name must not be empty'));
    if (!r?.uid) causes.push(fieldInvalid('metadata.ownerReferences.uid', '', 'uid must not be empty'));
  }
  const controllers = refs.filter((r) => r?.controller === true);
  if (controllers.length > 1) {
    causes.push({
      reason: 'FieldValueInvalid', field: 'metadata.ownerReferences',
      message: `Invalid value: []v1.OwnerReference{...}: Only one reference can have Controller set to true. Found "true" in references for ${controllers.map((c) => `${c.kind}/${c.name}`).join(' and ')}`,
    });
  }
  return { causes, warnings };
}

/** metadata.name rules: Services are DNS-1035 labels, Namespaces DNS-1123 labels, everything else DNS-1123 subdomains. */
export function nameErrors(res: { kind: string; group: string; custom: boolean }, name: string): StatusCause[] {
  const builtin = !res.custom && res.group === '';
  const check = builtin && res.kind === 'Service' ? isDns1035Label : builtin && res.kind === 'Namespace' ? isDns1123Label : isDns1123Subdomain;
  return check(name).map(e => fieldInvalid('metadata.name', name, e));
}
