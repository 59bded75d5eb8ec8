import { nameCheckOf } from './object-meta-names';
import { arr, dnsSubdomainIssues, nameIssues, obj, str } from './pod-spec-common';
import { child, index, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A container's env and envFrom (validateEnv, validateEnvFrom): names, exactly one source per valueFrom, the downward
 * API's field and resource selectors, ConfigMap and Secret key references.
 */

const STRICT_ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const STRICT_ENV_NAME_MSG =
  "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not " +
  "start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is " +
  "'[-._a-zA-Z][-._a-zA-Z0-9]*')";
const RELAXED_ENV_NAME_MSG =
  "a valid environment variable name must consist only of printable ASCII characters other than '='";

/**
 * IsEnvVarName, or from 1.32 IsRelaxedEnvVarName (RelaxedEnvironmentVariableValidation, beta and on by default in
 * 1.32: any printable ASCII but `=`). Measured: 1.28 refuses `A B`, `1A` and `a:b`, 1.32 and 1.36 accept them; all
 * three refuse `A=B` and `é`. 1.29 to 1.31 keep the strict rule (the gate was alpha there).
 *
 * @internal
 */
export function envVarNameMessages(name: string, version: KubernetesVersion): string[] {
  if (minorOf(version) >= 32) {
    return [...name].some((c) => c.charCodeAt(0) < 32 || c.charCodeAt(0) > 126 || c === '=')
      ? [RELAXED_ENV_NAME_MSG]
      : [];
  }
  return STRICT_ENV_NAME.test(name) ? [] : [STRICT_ENV_NAME_MSG];
}

/** The downward API's field paths an env var may read (validEnvDownwardAPIFieldPathExpressions). */
const ENV_FIELD_PATHS = [
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.serviceAccountName',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
] as const;

/** The downward API volume's field paths (validVolumeDownwardAPIFieldPathExpressions). @internal */
export const VOLUME_FIELD_PATHS = [
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
] as const;

/** What ConvertDownwardAPIFieldLabel knows (`spec.host` is an alias of `spec.nodeName`). */
const CONVERTIBLE_FIELD_PATHS = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.hostIPs',
  'status.podIP',
  'status.podIPs',
]);

/**
 * validateObjectFieldSelector. apiVersion defaults to v1 when absent or empty (SetDefaults_ObjectFieldSelector;
 * measured: `apiVersion: ""` accepted by 1.28, 1.32 and 1.36), so its Required never comes.
 *
 * @internal
 */
export function fieldSelectorIssues(path: string, ref: any, supported: readonly string[]): Issue[] {
  const apiVersion = ref.apiVersion || 'v1';
  const fieldPath = str(ref.fieldPath);
  if (fieldPath === '') return [required(child(path, 'fieldPath'))];
  const converting = (detail: string) => [
    invalid(child(path, 'fieldPath'), fieldPath, `error converting fieldPath: ${detail}`),
  ];
  if (apiVersion !== 'v1') return converting(`unsupported pod version: ${apiVersion}`);
  const subscripted = /^(.*)\['(.*)'\]$/.exec(fieldPath);
  if (subscripted) {
    const [, base] = subscripted;
    if (base !== 'metadata.annotations' && base !== 'metadata.labels') {
      return converting(`field label does not support subscript: ${fieldPath}`);
    }
    return [];
  }
  const internal = fieldPath === 'spec.host' ? 'spec.nodeName' : fieldPath;
  if (!CONVERTIBLE_FIELD_PATHS.has(internal)) return converting(`field label not supported: ${fieldPath}`);
  return supported.includes(internal) ? [] : [notSupported(child(path, 'fieldPath'), internal, supported)];
}

const RESOURCE_FIELD_PATHS = [
  'limits.cpu',
  'limits.ephemeral-storage',
  'limits.memory',
  'requests.cpu',
  'requests.ephemeral-storage',
  'requests.memory',
] as const;

const CPU_DIVISORS = ['1m', '1'];
const MEMORY_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

/** validateContainerResourceFieldSelector (and its divisor). @internal */
export function resourceFieldSelectorIssues(path: string, ref: any, volume: boolean): Issue[] {
  const resource = str(ref.resource);
  const issues: Issue[] = [];
  if (volume && !ref.containerName) {
    issues.push(required(child(path, 'containerName')));
  } else if (resource === '') {
    issues.push(required(child(path, 'resource')));
  } else if (!RESOURCE_FIELD_PATHS.includes(resource as any) && !/^(limits|requests)\.hugepages-/.test(resource)) {
    issues.push(notSupported(child(path, 'resource'), resource, RESOURCE_FIELD_PATHS));
  }
  if (typeof ref.divisor === 'string' && Quantity.isValid(ref.divisor) && Quantity.parse(ref.divisor).sign() !== 0n) {
    const divisor = Quantity.parse(ref.divisor);
    const oneOf = (texts: readonly string[]) => texts.some((t) => Quantity.parse(t).compareTo(divisor) === 0n);
    const kind = resource.endsWith('.cpu')
      ? { allowed: CPU_DIVISORS, what: 'cpu' }
      : resource.endsWith('.memory')
        ? { allowed: MEMORY_DIVISORS, what: 'memory' }
        : resource.endsWith('.ephemeral-storage')
          ? { allowed: MEMORY_DIVISORS, what: 'local ephemeral storage' }
          : undefined;
    if (kind && !oneOf(kind.allowed)) {
      issues.push(
        invalid(
          child(path, 'divisor'),
          resource,
          `only divisor's values ${kind.allowed.join(', ')} are supported with the ${kind.what} resource`,
        ),
      );
    }
  }
  return issues;
}

/** IsConfigMapKey (ConfigMap and Secret keys). @internal */
export function configKeyMessages(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) {
    errs.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  " +
        "or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  }
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function keySelectorIssues(path: string, ref: any): Issue[] {
  const key = str(ref.key);
  return [
    ...dnsSubdomainIssues(child(path, 'name'), str(ref.name)),
    ...(key === '' ? [required(child(path, 'key'))] : nameIssues(child(path, 'key'), key, configKeyMessages(key))),
  ];
}

function valueFromIssues(path: string, env: any, version: KubernetesVersion): Issue[] {
  if (env.valueFrom == null) return [];
  const from = obj(env.valueFrom);
  const issues: Issue[] = [];
  let sources = 0;
  if (from.fieldRef != null) {
    sources++;
    issues.push(...fieldSelectorIssues(child(path, 'fieldRef'), obj(from.fieldRef), ENV_FIELD_PATHS));
  }
  if (from.resourceFieldRef != null) {
    sources++;
    issues.push(...resourceFieldSelectorIssues(child(path, 'resourceFieldRef'), obj(from.resourceFieldRef), false));
  }
  if (from.configMapKeyRef != null) {
    sources++;
    issues.push(...keySelectorIssues(child(path, 'configMapKeyRef'), obj(from.configMapKeyRef)));
  }
  if (from.secretKeyRef != null) {
    sources++;
    issues.push(...keySelectorIssues(child(path, 'secretKeyRef'), obj(from.secretKeyRef)));
  }
  if (from.fileKeyRef != null) sources++;
  if (sources === 0) {
    // 1.34 added `fileKeyRef` (EnvFiles) to the list, whether its gate is on or not (measured: 1.36 names it)
    const list =
      minorOf(version) >= 34
        ? '`fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`'
        : '`fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`';
    issues.push(invalid(path, '', `must specify one of: ${list}`));
  } else if (str(env.value) !== '') {
    issues.push(invalid(path, '', 'may not be specified when `value` is not empty'));
  } else if (sources > 1) {
    issues.push(invalid(path, '', 'may not have more than one field specified at a time'));
  }
  return issues;
}

/** validateEnv. @internal */
export function envIssues(path: string, env: unknown, version: KubernetesVersion): Issue[] {
  return arr(env).flatMap((raw, i) => {
    const e = obj(raw);
    const at = index(path, i);
    const name = str(e.name);
    return [
      ...(name === ''
        ? [required(child(at, 'name'))]
        : nameIssues(child(at, 'name'), name, envVarNameMessages(name, version))),
      ...valueFromIssues(child(at, 'valueFrom'), e, version),
    ];
  });
}

/**
 * validateConfigMapEnvSource, validateSecretEnvSource: the kind's name function with `prefix` (so a trailing dash
 * passes, as in a generateName: measured, 1.32 and 1.36 accept `configMapRef.name: a-`).
 */
function envSourceNameIssues(
  path: string,
  ref: any,
  kind: 'ConfigMap' | 'Secret',
  version: KubernetesVersion,
): Issue[] {
  const name = str(ref.name);
  const at = child(path, 'name');
  return name === '' ? [required(at)] : nameIssues(at, name, nameCheckOf('', kind, version)(name, true));
}

/** validateEnvFrom. @internal */
export function envFromIssues(path: string, envFrom: unknown, version: KubernetesVersion): Issue[] {
  return arr(envFrom).flatMap((raw, i) => {
    const e = obj(raw);
    const at = index(path, i);
    const prefix = str(e.prefix);
    const issues = prefix ? nameIssues(child(at, 'prefix'), prefix, envVarNameMessages(prefix, version)) : [];
    let sources = 0;
    if (e.configMapRef != null) {
      sources++;
      issues.push(...envSourceNameIssues(child(at, 'configMapRef'), obj(e.configMapRef), 'ConfigMap', version));
    }
    if (e.secretRef != null) {
      sources++;
      issues.push(...envSourceNameIssues(child(at, 'secretRef'), obj(e.secretRef), 'Secret', version));
    }
    if (sources === 0) issues.push(invalid(path, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (sources > 1) issues.push(invalid(path, '', 'may not have more than one field specified at a time'));
    return issues;
  });
}
