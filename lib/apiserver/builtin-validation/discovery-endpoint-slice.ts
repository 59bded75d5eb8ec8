import { ipErrors, parseIpSloppy, ParsedIp } from './networking-ip';
import { duplicateValue, invalidValue, isRecord, recordsOf, unsupportedValue } from './services-field-errors';
import { required } from '../../apimachinery/field';
import { tooMany } from '../../apimachinery/field-error-details';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label, isDns1123Subdomain, isQualifiedName, isValidLabelValue } from '../../apimachinery/names';

/*
 * The apiserver's create-time validation of a discovery.k8s.io/v1 EndpointSlice (pkg/apis/discovery/validation's
 * ValidateEndpointSliceCreate), on the object as v1 defaults it (a port's protocol is TCP). Measured on 1.28, 1.32
 * and 1.36 (cluster-differential). Not checked: the counts (at most 1000 endpoints, 100 addresses each, 100 ports).
 * A v1 slice's deprecatedTopology, zone, conditions and port numbers are not validated by the apiserver.
 */

/** validateHints' maxZoneHints and maxNodeHints. */
const MAX_HINTS = 8;

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'] as const;
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'] as const;

/**
 * From 1.36 an address is parsed strictly (StrictIPCIDRValidation, networking-ip.ts) and one of the wrong family is
 * reported at the list's path, `must be an IPv4 address`; before, `must be a valid IPv4 address` at the address's
 * own path, and an address that is no IP also fails ValidateNonSpecialIP. Measured; the versions between follow 1.32.
 */
const NEW_ADDRESS_CHECKS = 36;

/** @internal */
export function endpointSliceIssues(object: any, version: KubernetesVersion): Issue[] {
  if (!isRecord(object)) return [];
  const issues: Issue[] = [];
  const type = object.addressType;
  if (typeof type !== 'string' || type === '') {
    issues.push(required('addressType'));
  } else if (!(ADDRESS_TYPES as readonly string[]).includes(type)) {
    issues.push(unsupportedValue('addressType', type, ADDRESS_TYPES, version));
  }
  recordsOf(object.endpoints).forEach((e, i) => issues.push(...endpointIssues(e, `endpoints[${i}]`, type, version)));
  issues.push(...portsIssues(object.ports, version));
  return issues;
}

/** validateEndpoints, for one endpoint. */
function endpointIssues(
  endpoint: Record<string, any>,
  path: string,
  type: unknown,
  version: KubernetesVersion,
): Issue[] {
  const issues: Issue[] = [];
  const addresses = Array.isArray(endpoint.addresses)
    ? endpoint.addresses.map((a: unknown) => (a === null ? '' : String(a)))
    : [];
  if (addresses.length === 0) issues.push(required(`${path}.addresses`, 'must contain at least 1 address'));
  addresses.forEach((address: string, i: number) => {
    const at = `${path}.addresses[${i}]`;
    if (type === 'IPv4' || type === 'IPv6') {
      issues.push(...ipAddressIssues(address, at, `${path}.addresses`, type, version));
    } else if (type === 'FQDN') {
      issues.push(...fqdnIssues(address, at, version));
    }
  });
  if (typeof endpoint.hostname === 'string') {
    issues.push(...invalidValue(`${path}.hostname`, endpoint.hostname, isDns1123Label(endpoint.hostname), version));
  }
  // a pointer: an empty name set is validated too (measured on 1.28, 1.32 and 1.36)
  if (typeof endpoint.nodeName === 'string') {
    issues.push(...invalidValue(`${path}.nodeName`, endpoint.nodeName, isDns1123Subdomain(endpoint.nodeName), version));
  }
  if (isRecord(endpoint.hints)) issues.push(...hintsIssues(endpoint.hints, `${path}.hints`, version));
  return issues;
}

/**
 * validateHints: at most 8 zones, each a label value, none twice (past 8, nothing else of the hints is checked); then
 * as many nodes (`forNodes`, 1.33 on; unknown to 1.28's and 1.32's decoding), each a node name (a DNS subdomain, the
 * empty one refused too). Measured on 1.28, 1.32 and 1.36 (found by the additions differential).
 */
function hintsIssues(hints: Record<string, any>, path: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const lists: ReadonlyArray<readonly [string, (name: string) => string[]]> = [
    ['forZones', (name) => isValidLabelValue(name, version)],
    ['forNodes', (name) => isDns1123Subdomain(name)],
  ];
  for (const [field, check] of lists) {
    const list = recordsOf(hints[field]);
    if (list.length > MAX_HINTS) {
      issues.push({ path: `${path}.${field}`, message: tooMany(list.length, MAX_HINTS, version), value: list.length });
      return issues;
    }
    const seen = new Set<string>();
    list.forEach((hint, i) => {
      const at = `${path}.${field}[${i}].name`;
      const name = typeof hint.name === 'string' ? hint.name : '';
      if (seen.has(name)) issues.push(duplicateValue(at, name, version));
      seen.add(name);
      issues.push(...invalidValue(at, name, check(name), version));
    });
  }
  return issues;
}

/** An address of an IPv4 or IPv6 slice: its family (IsValidIPv4Address / IsValidIPv6Address), then ValidateNonSpecialIP. */
function ipAddressIssues(
  address: string,
  path: string,
  listPath: string,
  type: 'IPv4' | 'IPv6',
  version: KubernetesVersion,
): Issue[] {
  const ip = parseIpSloppy(address);
  const family = type === 'IPv4' ? 4 : 6;
  if (minorOf(version) >= NEW_ADDRESS_CHECKS) {
    const errors = ipErrors(address, version);
    if (errors.length > 0 || !ip) return invalidValue(path, address, errors, version);
    return [
      ...(ip.family !== family ? invalidValue(listPath, address, [`must be an ${type} address`], version) : []),
      ...invalidValue(path, address, specialIpErrors(ip), version),
    ];
  }
  // Go's net.IP: an IPv4-mapped IPv6 address is an IPv4 address (To4 is not nil)
  const sloppy = ip && unmapped(ip);
  return [
    ...(sloppy?.family !== family ? invalidValue(path, address, [`must be a valid ${type} address`], version) : []),
    ...invalidValue(path, address, sloppy ? specialIpErrors(sloppy) : ['must be a valid IP address'], version),
  ];
}

function unmapped(ip: ParsedIp): ParsedIp {
  const b = ip.bytes;
  const mapped = ip.family === 6 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  return mapped ? { family: 4, bytes: b.slice(12) } : ip;
}

/** ValidateNonSpecialIP: no unspecified, loopback, link-local or link-local multicast address. */
function specialIpErrors(ip: ParsedIp): string[] {
  const b = ip.bytes;
  if (b.every((x) => x === 0)) return [`may not be unspecified (${ip.family === 4 ? '0.0.0.0' : '::'})`];
  const v4 = ip.family === 4;
  const loopback = v4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1;
  if (loopback) return ['may not be in the loopback range (127.0.0.0/8, ::1/128)'];
  const linkLocal = v4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80;
  if (linkLocal) return ['may not be in the link-local range (169.254.0.0/16, fe80::/10)'];
  const linkLocalMulticast = v4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02;
  if (linkLocalMulticast) return ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)'];
  return [];
}

/** IsFullyQualifiedDomainName: a subdomain (a trailing dot allowed) of two labels at least. */
function fqdnIssues(address: string, path: string, version: KubernetesVersion): Issue[] {
  if (address === '') return [required(path)];
  const name = address.endsWith('.') ? address.slice(0, -1) : address;
  const subdomain = isDns1123Subdomain(name);
  if (subdomain.length > 0) return invalidValue(path, name, [subdomain.join(',')], version);
  const labels = name.split('.');
  if (labels.length < 2) {
    return invalidValue(path, name, ['should be a domain with at least two segments separated by dots'], version);
  }
  const bad = labels.find((l) => isDns1123Label(l).length > 0);
  return bad === undefined ? [] : invalidValue(path, bad, [isDns1123Label(bad).join(',')], version);
}

/** validatePorts: names DNS labels and unique (the empty name too), protocols, appProtocol a qualified name. */
function portsIssues(ports: unknown, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const seen = new Set<string>();
  recordsOf(ports).forEach((port, i) => {
    const path = `ports[${i}]`;
    const name = typeof port.name === 'string' ? port.name : '';
    if (name !== '') issues.push(...invalidValue(`${path}.name`, name, isDns1123Label(name), version));
    if (seen.has(name)) issues.push(duplicateValue(`${path}.name`, name, version));
    seen.add(name);
    const protocol = typeof port.protocol === 'string' ? port.protocol : 'TCP';
    if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
      issues.push(unsupportedValue(`${path}.protocol`, protocol, PROTOCOLS, version));
    }
    if (typeof port.appProtocol === 'string') {
      issues.push(
        ...invalidValue(`${path}.appProtocol`, port.appProtocol, isQualifiedName(port.appProtocol, version), version),
      );
    }
  });
  return issues;
}
