/**
 * The name checks of `k8s.io/apimachinery/pkg/util/validation`, returning the same messages.
 * An empty result means the value is valid.
 */

const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_LABEL}(\\.${DNS1123_LABEL})*$`);

export function isDns1035Label(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!DNS1035_LABEL.test(value)) {
    errs.push("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, "
      + "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')");
  }
  return errs;
}

export function isDns1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
      + "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
      + "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
  }
  return errs;
}
