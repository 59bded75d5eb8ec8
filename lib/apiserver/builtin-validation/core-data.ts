import { invalid, key, required } from '../../apimachinery/field';
import { tooLongBytes } from '../../apimachinery/field-error-details';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * ConfigMap and Secret contents as core's ValidateConfigMap and ValidateSecret check them on create: keys, the two
 * bags of a ConfigMap, the 1 MiB total, a Secret type's required keys. Measured on 1.28, 1.32 and 1.36
 * (test/apiserver/builtin-validation/core-differential.test.ts).
 */

/** core.MaxSecretSize: the most a ConfigMap's or a Secret's values may hold together. */
const MAX_SIZE = 1024 * 1024;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or " +
  "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

/** apimachinery's IsConfigMapKey. @internal */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (Buffer.byteLength(value) > 253) errs.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(value)) errs.push(CONFIG_KEY_MSG);
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const entries = (bag: unknown): [string, unknown][] =>
  typeof bag === 'object' && bag !== null && !Array.isArray(bag) ? Object.entries(bag) : [];
const base64Bytes = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64').length : 0);
const keyIssues = (bag: string, k: string, version: KubernetesVersion) =>
  isConfigMapKey(k).map((m) => invalid(key(bag, k), k, `${fieldValue(k, version)}: ${m}`));

/** @internal */
export function configMapIssues(object: any, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const binary = entries(object.binaryData);
  const binaryKeys = new Set(binary.map(([k]) => k));
  let size = 0;
  for (const [k, v] of entries(object.data)) {
    issues.push(...keyIssues('data', k, version));
    if (binaryKeys.has(k)) {
      issues.push(invalid(key('data', k), k, `${fieldValue(k, version)}: duplicate of key present in binaryData`));
    }
    size += typeof v === 'string' ? Buffer.byteLength(v) : 0;
  }
  for (const [k, v] of binary) {
    issues.push(...keyIssues('binaryData', k, version));
    size += base64Bytes(v);
  }
  if (size > MAX_SIZE) {
    // the apiserver names the whole object (field.NewPath(""), printed `[]`), in field.TooLong's words
    issues.push({ path: '[]', message: tooLongBytes(MAX_SIZE, version), value: size });
  }
  return issues;
}

/** The keys each Secret type requires in data (stringData counts: the apiserver merges it into data first). */
const DOCKER_KEYS: Readonly<Record<string, string>> = {
  'kubernetes.io/dockercfg': '.dockercfg',
  'kubernetes.io/dockerconfigjson': '.dockerconfigjson',
};

/** @internal */
export function secretIssues(object: any, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  // stringData's values replace data's of the same key, as plain text
  const data = new Map<string, Buffer>(
    entries(object.data).map(([k, v]) => [k, Buffer.from(String(v ?? ''), 'base64')]),
  );
  for (const [k, v] of entries(object.stringData)) data.set(k, Buffer.from(String(v ?? '')));
  let size = 0;
  for (const [k, v] of data) {
    issues.push(...keyIssues('data', k, version));
    size += v.length;
  }
  if (size > MAX_SIZE) issues.push({ path: 'data', message: tooLongBytes(MAX_SIZE, version), value: size });
  const type = object.type;
  if (type === 'kubernetes.io/service-account-token') {
    if (!object.metadata?.annotations?.['kubernetes.io/service-account.name']) {
      issues.push(required('metadata.annotations[kubernetes.io/service-account.name]'));
    }
  } else if (typeof type === 'string' && DOCKER_KEYS[type]) {
    const k = DOCKER_KEYS[type];
    const content = data.get(k);
    if (content === undefined) {
      issues.push(required(key('data', k)));
    } else {
      const error = jsonObjectError(content.toString());
      if (error) {
        issues.push(invalid(key('data', k), '<secret contents redacted>', `"<secret contents redacted>": ${error}`));
      }
    }
  } else if (type === 'kubernetes.io/basic-auth') {
    if (!data.has('username') && !data.has('password')) {
      issues.push(required('data[username]'), required('data[password]'));
    }
  } else if (type === 'kubernetes.io/ssh-auth') {
    if (!data.get('ssh-privatekey')?.length) issues.push(required('data[ssh-privatekey]'));
  } else if (type === 'kubernetes.io/tls') {
    for (const k of ['tls.crt', 'tls.key']) if (!data.has(k)) issues.push(required(key('data', k)));
  }
  return issues;
}

/** Why Go's json.Unmarshal into a map refuses `text` (its words for the common cases), or undefined. */
function jsonObjectError(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text.trim() === '' ? 'unexpected end of JSON input' : 'invalid JSON';
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const type = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}
