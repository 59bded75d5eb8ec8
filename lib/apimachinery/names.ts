/**
 * The name checks of `k8s.io/apimachinery/pkg/util/validation`, returning the same messages.
 * An empty result means the value is valid. One home for every check that names objects, label keys
 * and values (CRD names, example resources, the CEL `format` library).
 */

import { DEFAULT_KUBERNETES_VERSION, KubernetesVersion, since } from './kubernetes-versions';

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL_PART = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_PART}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL_PART}(\\.${DNS1123_LABEL_PART})*$`);
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an " +
  "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end " +
  "with an alphanumeric character (e.g. 'example.com', regex used for validation is " +
  "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " +
  "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an " +
  "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') " +
  "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end " +
  "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function check(value: string, max: number, re: RegExp, message: string, unit = 'characters'): string[] {
  const errs: string[] = [];
  // Go's len(): bytes of UTF-8, not characters (whatever the message says)
  if (byteLength(value) > max) errs.push(`must be no more than ${max} ${unit}`);
  if (!re.test(value)) errs.push(message);
  return errs;
}

/** The unit of the label checks' length messages: `bytes` from 1.35 (apimachinery's api/validate/content). */
function labelUnit(version: KubernetesVersion): string {
  return since(version, 'labelChecksInBytes') ? 'bytes' : 'characters';
}

/** @internal */
export function isDns1035Label(value: string): string[] {
  return check(value, 63, DNS1035_LABEL, DNS1035_MSG);
}

/** @internal */
export function isDns1123Label(value: string): string[] {
  const errs = check(value, 63, DNS1123_LABEL, DNS1123_LABEL_MSG);
  // a valid subdomain that is no label: apimachinery says why (the length was checked already, so it is the dots)
  return errs.map((e) => (e === DNS1123_LABEL_MSG && DNS1123_SUBDOMAIN.test(value) ? 'must not contain dots' : e));
}

function byteLength(value: string): number {
  return new TextEncoder().encode(value).length;
}

/** @internal */
export function isDns1123Subdomain(value: string, unit: 'characters' | 'bytes' = 'characters'): string[] {
  return check(value, 253, DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MSG, unit);
}

/**
 * IsQualifiedName: label and annotation keys, finalizers (`[prefix/]name`), in the wording of `version`
 * (from 1.35 apimachinery's content.IsLabelKey: lengths in bytes, `a valid label key`).
 *
 * @internal
 */
export function isQualifiedName(value: string, version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): string[] {
  const parts = value.split('/');
  if (parts.length > 2) {
    return [`${since(version, 'labelChecksInBytes') ? 'a valid label key' : 'a qualified name'} ${QUALIFIED_NAME_MSG}`];
  }
  const name = parts[parts.length - 1];
  const errs: string[] = [];
  if (parts.length === 2) {
    if (!parts[0]) {
      errs.push('prefix part must be non-empty');
    } else {
      errs.push(
        ...check(parts[0], 253, DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MSG, labelUnit(version)).map(
          (e) => `prefix part ${e}`,
        ),
      );
    }
  }
  if (!name) errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part must be no more than 63 ${labelUnit(version)}`);
  // an empty name part also fails the pattern: the apiserver says both (measured on 1.28, 1.32 and 1.36)
  if (!QUALIFIED_NAME_PART.test(name)) errs.push(NAME_PART_MSG);
  return errs;
}

/** IsValidLabelValue, in the wording of `version` (lengths in bytes from 1.35). @internal */
export function isValidLabelValue(value: string, version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION): string[] {
  return check(value, 63, LABEL_VALUE, LABEL_VALUE_MSG, labelUnit(version));
}

/**
 * A name as a PascalCase identifier: `foo-operator` → `FooOperator`, `v1alpha1` → `V1Alpha1` (a letter after
 * digits is upper-cased too, as json-schema-to-typescript names the interfaces it declares). One spelling for
 * generated type names and alert names alike.
 * @internal
 */
export function pascalCase(text: string): string {
  return text
    .replace(/(^|[^a-zA-Z0-9]+)([a-zA-Z0-9])/g, (_m, _sep, c: string) => c.toUpperCase())
    .replace(/(\d)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase());
}
