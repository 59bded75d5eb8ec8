import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import {
  isDns1035Label,
  isDns1123Label,
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
} from '../../apimachinery/names';
import { checkFormat } from '../schema/formats';

/**
 * apimachinery's `maskTrailingDash` for name prefixes (`generateName`): a trailing dash and the character before it
 * become one `a` (so `_-` is a valid prefix, `a--` is not).
 */
function maskTrailingDash(name: string): string {
  if (name.length < 2 || !name.endsWith('-')) return name;
  // Go cuts bytes: before a non-ASCII character it leaves a broken one behind, which no name pattern accepts
  return `${name.slice(0, -2)}${name.charCodeAt(name.length - 2) < 0x80 ? '' : '\uFFFD'}a`;
}

/**
 * The named string formats of the Kubernetes CEL `format` library (`format.dns1123Label()`,
 * `format.named('uuid')`…). Each returns the apiserver's error strings of `version` (empty when valid): the library
 * calls apimachinery's checks, whose wording changed in 1.35 (`must be no more than 63 bytes`, `a valid label key`;
 * measured on 1.36), and the uri format's.
 */
export const NAMED_FORMATS: Readonly<Record<string, (value: string, version: KubernetesVersion) => string[]>> = {
  dns1123Label: (v) => isDns1123Label(v),
  dns1123Subdomain: (v) => isDns1123Subdomain(v),
  dns1035Label: (v) => isDns1035Label(v),
  qualifiedName: (v, version) => isQualifiedName(v, version),
  dns1123LabelPrefix: (v) => isDns1123Label(maskTrailingDash(v)),
  dns1123SubdomainPrefix: (v) => isDns1123Subdomain(maskTrailingDash(v)),
  dns1035LabelPrefix: (v) => isDns1035Label(maskTrailingDash(v)),
  labelValue: (v, version) => isValidLabelValue(v, version),
  uri: (v, version) => (checkFormat('uri', v, version) ? [] : ['invalid URI']),
  uuid: (v) => (checkFormat('uuid', v) ? [] : ['does not match the UUID format']),
  byte: (v) => (checkFormat('byte', v) ? [] : ['invalid base64']),
  date: (v) => (checkFormat('date', v) ? [] : ['invalid date']),
  datetime: (v) => (checkFormat('date-time', v) ? [] : ['invalid datetime']),
};
