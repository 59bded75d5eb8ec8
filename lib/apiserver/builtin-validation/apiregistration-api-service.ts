import { NameCheck, pathSegment } from './object-meta-names';
import { portNumberErrors } from './ports';
import { invalidValue, isRecord } from './services-field-errors';
import { required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isDns1035Label, isDns1123Subdomain } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of an apiregistration.k8s.io/v1 APIService (kube-aggregator's
 * pkg/apis/apiregistration/validation ValidateAPIService), on the object as v1's defaults leave it (a service's port
 * defaults to 443). Measured on 1.28, 1.32 and 1.36 (cluster-differential). The service's namespace and name are not
 * checked beyond being present, and whether the service exists is the cluster's business.
 */

/** @internal */
export function apiServiceIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const apiVersion = typeof spec.version === 'string' ? spec.version : '';
  const issues: Issue[] = [];
  if (group === '' && apiVersion !== 'v1') {
    issues.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  }
  if (group !== '') issues.push(...invalidValue('spec.group', group, isDns1123Subdomain(group), version));
  issues.push(...invalidValue('spec.version', apiVersion, isDns1035Label(apiVersion), version));
  issues.push(...priorityIssues(spec.groupPriorityMinimum, 'spec.groupPriorityMinimum', 20000, version));
  issues.push(...priorityIssues(spec.versionPriority, 'spec.versionPriority', 1000, version));
  issues.push(...backendIssues(spec, version));
  return issues;
}

/**
 * The name function ValidateAPIService gives ValidateObjectMeta, for the name and the generateName alike (it ignores
 * `prefix`): a path segment, then exactly `spec.version + "." + spec.group`. Measured on 1.28, 1.32 and 1.36: a
 * generateName `x-` beside the right name is refused at metadata.generateName, and a generateName alone gives a name
 * with a random suffix, never the required one, refused at metadata.name.
 *
 * @internal
 */
export function apiServiceNameCheck(object: any): NameCheck {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const apiVersion = typeof spec.version === 'string' ? spec.version : '';
  const requiredName = `${apiVersion}.${group}`;
  return (name) => {
    const failures = pathSegment(name, false);
    if (failures.length > 0) return failures;
    return name === requiredName ? [] : [`must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`];
  };
}

/** Both priorities: positive and at most `max` (the message says "less than", the check allows `max` itself). */
function priorityIssues(value: unknown, path: string, max: number, version: KubernetesVersion): Issue[] {
  const n = typeof value === 'number' ? value : 0;
  return n > 0 && n <= max ? [] : invalidValue(path, n, [`must be positive and less than ${max}`], version);
}

/** A local APIService (no service) may have no TLS settings; a service needs its namespace and name. */
function backendIssues(spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  const caBytes = typeof spec.caBundle === 'string' ? Buffer.from(spec.caBundle, 'base64').length : 0;
  const insecure = spec.insecureSkipTLSVerify === true;
  if (!isRecord(spec.service)) {
    return [
      ...(caBytes > 0
        ? invalidValue('spec.caBundle', `${caBytes} bytes`, ['local APIServices may not have a caBundle'], version)
        : []),
      ...(insecure
        ? invalidValue(
            'spec.insecureSkipTLSVerify',
            true,
            ['local APIServices may not have insecureSkipTLSVerify'],
            version,
          )
        : []),
    ];
  }
  const service = spec.service;
  const issues: Issue[] = [];
  if (typeof service.namespace !== 'string' || service.namespace === '') {
    issues.push(required('spec.service.namespace'));
  }
  if (typeof service.name !== 'string' || service.name === '') issues.push(required('spec.service.name'));
  if (typeof service.port === 'number') {
    const details = portNumberErrors(service.port).map((e) => `port is not valid: ${e}`);
    issues.push(...invalidValue('spec.service.port', service.port, details, version));
  }
  if (insecure && caBytes > 0) {
    issues.push(
      ...invalidValue('spec.insecureSkipTLSVerify', true, ['may not be true if caBundle is present'], version),
    );
  }
  return issues;
}
