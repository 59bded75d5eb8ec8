import { portNumberErrors, portNumberOrNameIssues } from './ports';
import { defaultedServiceSpec, DefaultedServicePort, DefaultedServiceSpec } from './services-defaults';
import { duplicateValue, invalidValue, isRecord, unsupportedValue } from './services-field-errors';
import { clusterIpIssues, clusterIpRelatedIssues, externalIpIssues, sourceRangeIssues } from './services-ip-fields';
import { trafficIssues } from './services-traffic';
import { BuiltinValidators } from './validator';
import { forbidden, required } from '../../apimachinery/field';
import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';
import { labelMapIssues } from '../../apimachinery/label-selector';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of a v1 Service (pkg/apis/core/validation's ValidateService and the Service
 * REST storage's allocation checks that refuse a Service whatever the cluster), on the Service as defaulted
 * (services-defaults.ts). Measured on 1.28, 1.32 and 1.36 (test/apiserver/builtin-validation/services-differential).
 * Not checked: what depends on the cluster (clusterIP inside the service CIDR and free, nodePort inside the node-port
 * range and free, IPv6 or dual-stack configured).
 */

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'] as const;
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;
const SESSION_AFFINITIES = ['ClientIP', 'None'] as const;
/**
 * A LoadBalancer Service may not expose the kubelet's port 10250 up to 1.32 (measured); kubernetes/kubernetes#129174
 * (December 2024, 1.33) removed the rule (measured: 1.36 accepts it).
 */
const KUBELET_PORT_ALLOWED = 33;
const KUBELET_PORT = 10250;

function serviceIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = defaultedServiceSpec(object?.spec);
  const headless = spec.clusterIPs[0] === 'None';
  const issues: Issue[] = [];
  if (spec.ports.length === 0 && !headless && spec.type !== 'ExternalName') issues.push(required('spec.ports'));
  if (spec.type === 'LoadBalancer' && minorOf(version) < KUBELET_PORT_ALLOWED) {
    spec.ports.forEach((p, i) => {
      if (p.port === KUBELET_PORT) {
        issues.push(
          ...invalidValue(
            `spec.ports[${i}]`,
            p.port,
            [`may not expose port ${KUBELET_PORT} externally since it is used by kubelet`],
            version,
          ),
        );
      }
    });
  }
  if (spec.type === 'ExternalName') issues.push(...externalNameIssues(spec, version));
  issues.push(...portListIssues(spec, version));
  issues.push(...labelMapIssues(spec.raw.selector, 'spec.selector', version));
  issues.push(...sessionAffinityIssues(spec, version));
  issues.push(...clusterIpIssues(spec, version));
  issues.push(...externalIpIssues(spec, version));
  if (typeof spec.type === 'string' && !(SERVICE_TYPES as readonly string[]).includes(spec.type)) {
    issues.push(unsupportedValue('spec.type', spec.type, SERVICE_TYPES, version));
  }
  issues.push(...nodePortIssues(spec, version));
  issues.push(...duplicatePortIssues(spec.ports, version));
  issues.push(...sourceRangeIssues(spec, version));
  issues.push(...loadBalancerOnlyIssues(spec, version));
  issues.push(...trafficIssues(spec, version));
  return issues;
}

/** externalName: required, a DNS subdomain once a trailing dot (a fully qualified name) is cut. */
function externalNameIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const name = typeof spec.raw.externalName === 'string' ? spec.raw.externalName : '';
  const cname = name.endsWith('.') ? name.slice(0, -1) : name;
  if (cname === '') return [required('spec.externalName')];
  return invalidValue('spec.externalName', cname, isDns1123Subdomain(cname), version);
}

/** Each port: a name (required when there are several, a DNS label, unique), port, protocol, appProtocol, targetPort. */
function portListIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const names = new Set<string>();
  return spec.ports.flatMap((p, i) => {
    const at = `spec.ports[${i}]`;
    const issues: Issue[] = [];
    if (spec.ports.length > 1 && p.name === '') {
      issues.push(required(`${at}.name`));
    } else if (p.name !== '') {
      issues.push(...invalidValue(`${at}.name`, p.name, isDns1123Label(p.name), version));
      if (names.has(p.name)) issues.push(duplicateValue(`${at}.name`, p.name, version));
      names.add(p.name);
    }
    if (typeof p.port === 'number') {
      issues.push(...invalidValue(`${at}.port`, p.port, portNumberErrors(p.port), version));
    }
    if (typeof p.protocol === 'string' && !(PROTOCOLS as readonly string[]).includes(p.protocol)) {
      issues.push(unsupportedValue(`${at}.protocol`, p.protocol, PROTOCOLS, version));
    }
    const appProtocol = p.raw.appProtocol;
    if (typeof appProtocol === 'string') {
      issues.push(...invalidValue(`${at}.appProtocol`, appProtocol, isQualifiedName(appProtocol, version), version));
    }
    issues.push(...portNumberOrNameIssues(p.targetPort, `${at}.targetPort`, version));
    return issues;
  });
}

/** sessionAffinity, and ClientIP's timeout (defaulted to 10800 when unset): 1 to 86400 seconds. */
function sessionAffinityIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const affinity = spec.sessionAffinity;
  if (typeof affinity === 'string' && !(SESSION_AFFINITIES as readonly string[]).includes(affinity)) {
    return [unsupportedValue('spec.sessionAffinity', affinity, SESSION_AFFINITIES, version)];
  }
  const config = spec.raw.sessionAffinityConfig;
  const timeout = isRecord(config) && isRecord(config.clientIP) ? config.clientIP.timeoutSeconds : undefined;
  if (affinity !== 'ClientIP' || typeof timeout !== 'number' || (timeout > 0 && timeout <= 86400)) return [];
  return invalidValue(
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds',
    timeout,
    ['must be greater than 0 and less than 86400'],
    version,
  );
}

/**
 * nodePorts: refused on ClusterIP Services; two ports of a NodePort or LoadBalancer Service with the same nodePort
 * and protocol are refused by the allocator, before validation (measured: `provided port is already allocated`).
 * The range itself is the cluster's (--service-node-port-range), not checked.
 */
function nodePortIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const allocated = spec.type === 'NodePort' || spec.type === 'LoadBalancer';
  const seen = new Set<string>();
  spec.ports.forEach((p, i) => {
    const at = `spec.ports[${i}].nodePort`;
    if (p.nodePort === 0 || p.nodePort === undefined) return;
    if (spec.type === 'ClusterIP') issues.push(forbidden(at, "may not be used when `type` is 'ClusterIP'"));
    const key = `${String(p.protocol)}/${String(p.nodePort)}`;
    if (seen.has(key)) {
      issues.push(
        allocated
          ? invalidValue(at, p.nodePort, ['provided port is already allocated'], version)[0]
          : duplicateValue(at, p.nodePort, version),
      );
    }
    seen.add(key);
  });
  return issues;
}

/** Two ports with the same port and protocol: the apiserver prints the key it compared, a core.ServicePort. */
function duplicatePortIssues(ports: readonly DefaultedServicePort[], version: KubernetesVersion): Issue[] {
  const seen = new Set<string>();
  return ports.flatMap((p, i) => {
    const key = `${String(p.protocol)}/${String(p.port)}`;
    const dup = seen.has(key);
    seen.add(key);
    if (!dup) return [];
    const protocol = fieldValue(p.protocol, version);
    const port = fieldValue(p.port, version);
    const shown = since(version, 'fieldValuesAsJson')
      ? `{"Name":"","Protocol":${protocol},"AppProtocol":null,"Port":${port},"TargetPort":0,"NodePort":0}`
      : `core.ServicePort{Name:"", Protocol:${protocol}, AppProtocol:(*string)(nil), Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
    return [{ path: `spec.ports[${i}]`, message: `Duplicate value: ${shown}`, value: p.port }];
  });
}

/** allocateLoadBalancerNodePorts and loadBalancerClass: LoadBalancer Services only; the class a qualified name. */
function loadBalancerOnlyIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const lb = spec.type === 'LoadBalancer';
  const only = "may only be used when `type` is 'LoadBalancer'";
  if (spec.raw.allocateLoadBalancerNodePorts !== undefined && spec.raw.allocateLoadBalancerNodePorts !== null && !lb) {
    issues.push(forbidden('spec.allocateLoadBalancerNodePorts', only));
  }
  const cls = spec.raw.loadBalancerClass;
  if (typeof cls === 'string') {
    if (!lb) issues.push(forbidden('spec.loadBalancerClass', only));
    else issues.push(...invalidValue('spec.loadBalancerClass', cls, isQualifiedName(cls, version), version));
  }
  return issues;
}

/** @internal */
export const SERVICE_VALIDATORS: BuiltinValidators = {
  'v1/Service': serviceIssues,
};

/**
 * What the Service REST storage's BeginCreate (its IP allocation, run before ObjectMeta and validation) refuses
 * whatever the cluster: clusterIpRelatedIssues. Where it refuses, nothing else is checked.
 *
 * @internal
 */
export const SERVICE_BEGIN_CREATE: BuiltinValidators = {
  'v1/Service': (object, version) => clusterIpRelatedIssues(defaultedServiceSpec(object?.spec), version),
};
