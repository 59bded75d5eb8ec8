import { invalidValue } from './services-field-errors';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * Port numbers and IANA service names (k8s.io/apimachinery's IsValidPortNum and IsValidPortName), shared by pods,
 * Services, NetworkPolicies and Ingresses.
 */

const PORT_RANGE = 'must be between 1 and 65535, inclusive';

/** IsValidPortNum: 1 to 65535. @internal */
export function portNumberErrors(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [PORT_RANGE];
}

/** IsValidPortName: an IANA_SVC_NAME (at most 15 lowercase letters, digits and inner single hyphens, one letter at least). @internal */
export function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push('must be no more than 15 characters');
  if (!/^[-a-z0-9]+$/.test(name)) errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errs.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errs.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** ValidatePortNumOrName of an int-or-string port (`targetPort`, a NetworkPolicy's `port`). @internal */
export function portNumberOrNameIssues(port: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (typeof port === 'number') return invalidValue(path, port, portNumberErrors(port), version);
  if (typeof port === 'string') return invalidValue(path, port, portNameErrors(port), version);
  return [];
}
