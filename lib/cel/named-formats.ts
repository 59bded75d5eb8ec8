import { checkFormat } from '../validation/value-formats';

/**
 * The named string formats of the Kubernetes CEL `format` library (`format.dns1123Label()`,
 * `format.named('uuid')`…). Each returns the apiserver's error strings (empty when valid).
 */
export const NAMED_FORMATS: Readonly<Record<string, (value: string) => string[]>> = {
  dns1123Label: v => label(v, DNS1123_LABEL, 63, LABEL_MSG),
  dns1123Subdomain: v => subdomain(v),
  dns1035Label: v => label(v, DNS1035_LABEL, 63, DNS1035_MSG),
  qualifiedName: v => qualifiedName(v),
  dns1123LabelPrefix: v => label(v.replace(/-$/, ''), DNS1123_LABEL, 63, LABEL_MSG),
  dns1123SubdomainPrefix: v => subdomain(v.replace(/-$/, '')),
  dns1035LabelPrefix: v => label(v.replace(/-$/, ''), DNS1035_LABEL, 63, DNS1035_MSG),
  labelValue: v => (v.length <= 63 && /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/.test(v)
    ? []
    : ["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"]),
  uri: v => (checkFormat('uri', v) ? [] : ['invalid URI']),
  uuid: v => (checkFormat('uuid', v) ? [] : ['does not match the UUID format']),
  byte: v => (checkFormat('byte', v) ? [] : ['invalid base64']),
  date: v => (checkFormat('date', v) ? [] : ['invalid date']),
  datetime: v => (checkFormat('date-time', v) ? [] : ['invalid datetime']),
};

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_MSG = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_MSG = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";

function label(v: string, re: RegExp, max: number, msg: string): string[] {
  const errs: string[] = [];
  if (v.length > max) errs.push(`must be no more than ${max} characters`);
  if (!re.test(v)) errs.push(msg);
  return errs;
}

function subdomain(v: string): string[] {
  const errs: string[] = [];
  if (v.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(v)) {
    errs.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character");
  }
  return errs;
}

function qualifiedName(v: string): string[] {
  const parts = v.split('/');
  if (parts.length > 2) return ["a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'"];
  const name = parts[parts.length - 1];
  const errs = parts.length === 2 ? subdomain(parts[0]).map(e => `prefix part ${e}`) : [];
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length > 0 && !/^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/.test(name)) {
    errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character");
  }
  return errs;
}
