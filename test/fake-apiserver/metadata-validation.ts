/** ObjectMeta validation shared by every resource (apimachinery ValidateObjectMeta): labels, annotations, finalizers, ownerReferences. */
import { isObject } from './json-util';
import { StatusCause, fieldInvalid, formatValue } from './status';

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

const NAME_PART_MSG = 'name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')';
const PREFIX_MSG = 'prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')';

/** IsQualifiedName: messages for a bad `prefix/name` key (empty when fine). */
export function qualifiedNameErrors(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const errs: string[] = [];
  if (parts.length === 2) {
    const [prefix, n] = parts;
    name = n;
    if (!prefix) errs.push('prefix part must be non-empty');
    else if (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) errs.push(PREFIX_MSG);
  } else if (parts.length > 2) {
    return ['a qualified name must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\') with an optional DNS subdomain prefix and \'/\' (e.g. \'example.com/MyName\')'];
  }
  if (!name) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name && !NAME_PART.test(name)) errs.push(NAME_PART_MSG);
  return errs;
}

export interface MetadataCheck {
  readonly causes: StatusCause[];
  readonly warnings: string[];
}

export function validateObjectMeta(meta: any, custom: boolean): MetadataCheck {
  const causes: StatusCause[] = [];
  const warnings: string[] = [];
  if (isObject(meta.labels)) {
    for (const [k, v] of Object.entries(meta.labels)) {
      for (const e of qualifiedNameErrors(k)) causes.push(fieldInvalid('metadata.labels', k, e));
      const value = String(v ?? '');
      if (value.length > 63) causes.push(fieldInvalid('metadata.labels', value, 'must be no more than 63 characters'));
      if (!LABEL_VALUE.test(value)) {
        causes.push(fieldInvalid('metadata.labels', value, 'a valid label must be an empty string or consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyValue\',  or \'my_value\',  or \'12345\', regex used for validation is \'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?\')'));
      }
    }
  }
  if (isObject(meta.annotations)) {
    let total = 0;
    for (const [k, v] of Object.entries(meta.annotations)) {
      for (const e of qualifiedNameErrors(k.toLowerCase())) causes.push(fieldInvalid('metadata.annotations', k, e));
      total += k.length + String(v ?? '').length;
    }
    if (total > 256 * 1024) causes.push({ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${256 * 1024} bytes`, field: 'metadata.annotations' });
  }
  (Array.isArray(meta.finalizers) ? meta.finalizers : []).forEach((f: any, i: number) => {
    for (const e of qualifiedNameErrors(String(f))) causes.push(fieldInvalid(`metadata.finalizers[${i}]`, f, e));
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

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** metadata.name rules: Services are DNS-1035 labels, Namespaces DNS-1123 labels, everything else DNS-1123 subdomains. */
export function nameErrors(res: { kind: string; group: string; custom: boolean }, name: string): StatusCause[] {
  const builtin = !res.custom && res.group === '';
  if (builtin && res.kind === 'Service') {
    const errs: StatusCause[] = [];
    if (name.length > 63) errs.push(fieldInvalid('metadata.name', name, 'must be no more than 63 characters'));
    if (!DNS_1035_LABEL.test(name)) {
      errs.push(fieldInvalid('metadata.name', name, 'a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')'));
    }
    return errs;
  }
  if (builtin && res.kind === 'Namespace') {
    const errs: StatusCause[] = [];
    if (name.length > 63) errs.push(fieldInvalid('metadata.name', name, 'must be no more than 63 characters'));
    if (!DNS_LABEL.test(name)) {
      errs.push(fieldInvalid('metadata.name', name, 'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')'));
    }
    return errs;
  }
  const errs: StatusCause[] = [];
  if (name.length > 253) errs.push(fieldInvalid('metadata.name', name, 'must be no more than 253 characters'));
  if (!DNS_SUBDOMAIN.test(name)) {
    errs.push(fieldInvalid('metadata.name', name, 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\')'));
  }
  return errs;
}
