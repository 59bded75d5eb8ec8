import { portNumberErrors } from './ports';
import { DefaultedServiceSpec } from './services-defaults';
import { invalidValue, listOf, unsupportedValue } from './services-field-errors';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A Service's traffic fields on create: externalTrafficPolicy, healthCheckNodePort, internalTrafficPolicy and
 * trafficDistribution, each as the version's apiserver reads it.
 */

const TRAFFIC_POLICIES = ['Cluster', 'Local'] as const;
/**
 * From 1.29 a Service with externalIPs may set externalTrafficPolicy whatever its type, and the refusal says
 * `externally-accessible` (kubernetes/kubernetes#119150, July 2023); measured: 1.28 has the older rule and words.
 */
const EXTERNAL_IPS_TRAFFIC_POLICY = 29;
/** trafficDistribution: beta and on by default in 1.31 (alpha, off and dropped, in 1.30; unknown before). */
const TRAFFIC_DISTRIBUTION = 31;
/** PreferSameZone and PreferSameNode: beta and on by default in 1.34 (KEP-3015; measured refused by 1.32, accepted by 1.36). */
const PREFER_SAME = 34;

/** @internal */
export function trafficIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const minor = minorOf(version);
  // apiservice.ExternallyAccessible: external IPs count for a ClusterIP Service only (not an unsupported type: found
  // by bench/builtin-differential.ts)
  const withExternalIps =
    minor >= EXTERNAL_IPS_TRAFFIC_POLICY && spec.type === 'ClusterIP' && listOf(spec.raw.externalIPs).length > 0;
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer' || withExternalIps;
  const etp = spec.externalTrafficPolicy;
  if (typeof etp === 'string' && etp !== '') {
    if (!external) {
      const detail =
        minor >= EXTERNAL_IPS_TRAFFIC_POLICY
          ? 'may only be set for externally-accessible services'
          : "may only be set when `type` is 'NodePort' or 'LoadBalancer'";
      issues.push(...invalidValue('spec.externalTrafficPolicy', etp, [detail], version));
    } else if (!(TRAFFIC_POLICIES as readonly string[]).includes(etp)) {
      issues.push(unsupportedValue('spec.externalTrafficPolicy', etp, TRAFFIC_POLICIES, version));
    }
  }
  const hcnp = spec.raw.healthCheckNodePort;
  if (typeof hcnp === 'number' && hcnp !== 0) {
    const needsHealthCheck = spec.type === 'LoadBalancer' && etp === 'Local';
    issues.push(
      ...invalidValue(
        'spec.healthCheckNodePort',
        hcnp,
        needsHealthCheck
          ? portNumberErrors(hcnp)
          : ["may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"],
        version,
      ),
    );
  }
  const itp = spec.raw.internalTrafficPolicy;
  if (typeof itp === 'string' && !(TRAFFIC_POLICIES as readonly string[]).includes(itp)) {
    issues.push(unsupportedValue('spec.internalTrafficPolicy', itp, TRAFFIC_POLICIES, version));
  }
  const distribution = spec.raw.trafficDistribution;
  if (typeof distribution === 'string' && minor >= TRAFFIC_DISTRIBUTION) {
    const supported = minor >= PREFER_SAME ? ['PreferClose', 'PreferSameZone', 'PreferSameNode'] : ['PreferClose'];
    if (!supported.includes(distribution)) {
      issues.push(unsupportedValue('spec.trafficDistribution', distribution, supported, version));
    }
  }
  return issues;
}
