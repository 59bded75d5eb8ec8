import { cidrErrors, parseCidrSloppy, isStrictSubset } from './networking-ip';
import { portNameErrors, portNumberErrors } from './ports';
import {
  goStringList,
  invalidShown,
  invalidValue,
  isRecord,
  recordsOf,
  stringsOf,
  unsupportedValue,
} from './services-field-errors';
import { forbidden, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { labelSelectorIssues } from '../../apimachinery/label-selector';

/*
 * The apiserver's create-time validation of a networking.k8s.io/v1 NetworkPolicy (pkg/apis/networking/validation's
 * ValidateNetworkPolicySpec), protocols defaulted to TCP. Measured on 1.28, 1.32 and 1.36.
 */

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
const POLICY_TYPES = ['Ingress', 'Egress'] as const;

/** @internal */
export function networkPolicyIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [...labelSelectorIssues(spec.podSelector, 'spec.podSelector', version)];
  for (const [direction, peers] of [
    ['ingress', 'from'],
    ['egress', 'to'],
  ] as const) {
    recordsOf(spec[direction]).forEach((rule, i) => {
      const at = `spec.${direction}[${i}]`;
      recordsOf(rule.ports).forEach((p, j) => issues.push(...portIssues(p, `${at}.ports[${j}]`, version)));
      recordsOf(rule[peers]).forEach((p, j) => issues.push(...peerIssues(p, `${at}.${peers}[${j}]`, version)));
    });
  }
  const types = stringsOf(spec.policyTypes);
  // more than two: that alone, each type's own check skipped (upstream returns there)
  if (types.length > 2) {
    const shown = goStringList(types.map(String), version, '[]networking.PolicyType');
    issues.push(invalidShown('spec.policyTypes', types, shown, 'may not specify more than two policyTypes'));
    return issues;
  }
  types.forEach((t, i) => {
    if (typeof t === 'string' && !(POLICY_TYPES as readonly string[]).includes(t)) {
      issues.push(unsupportedValue(`spec.policyTypes[${i}]`, t, POLICY_TYPES, version));
    }
  });
  return issues;
}

/** A port: protocol, port number or name, endPort only after a numeric port and not below it. */
function portIssues(port: unknown, at: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(port)) return [];
  const issues: Issue[] = [];
  if (
    // only an absent protocol is defaulted (TCP): an empty one is refused (measured)
    typeof port.protocol === 'string' &&
    !(PROTOCOLS as readonly string[]).includes(port.protocol)
  ) {
    issues.push(unsupportedValue(`${at}.protocol`, port.protocol, PROTOCOLS, version));
  }
  const end = port.endPort;
  const hasEnd = typeof end === 'number';
  if (typeof port.port === 'number') {
    issues.push(...invalidValue(`${at}.port`, port.port, portNumberErrors(port.port), version));
    if (hasEnd) {
      if (end < port.port) {
        issues.push(...invalidValue(`${at}.endPort`, port.port, ['must be greater than or equal to `port`'], version));
      }
      issues.push(...invalidValue(`${at}.endPort`, end, portNumberErrors(end), version));
    }
  } else if (typeof port.port === 'string') {
    if (hasEnd) {
      issues.push(...invalidValue(`${at}.endPort`, end, ['may not be specified when `port` is non-numeric'], version));
    }
    issues.push(...invalidValue(`${at}.port`, port.port, portNameErrors(port.port), version));
  } else if (hasEnd) {
    issues.push(...invalidValue(`${at}.endPort`, end, ['may not be specified when `port` is not specified'], version));
  }
  return issues;
}

/** A peer: exactly one kind of peer when one is an ipBlock, at least one. */
function peerIssues(peer: unknown, at: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(peer)) return [];
  const issues: Issue[] = [];
  const given = (v: unknown) => v !== undefined && v !== null;
  let peers = 0;
  if (given(peer.podSelector)) {
    peers++;
    issues.push(...labelSelectorIssues(peer.podSelector, `${at}.podSelector`, version));
  }
  if (given(peer.namespaceSelector)) {
    peers++;
    issues.push(...labelSelectorIssues(peer.namespaceSelector, `${at}.namespaceSelector`, version));
  }
  if (given(peer.ipBlock)) {
    peers++;
    issues.push(...ipBlockIssues(peer.ipBlock, `${at}.ipBlock`, version));
  }
  if (peers === 0) {
    issues.push(required(at, 'must specify a peer'));
  } else if (given(peer.ipBlock) && peers > 1) {
    issues.push(forbidden(at, 'may not specify both ipBlock and another peer'));
  }
  return issues;
}

/**
 * An ipBlock: a CIDR, and excepts each a CIDR strictly inside it. Before 1.30 a bad CIDR is `not a valid CIDR`.
 * ValidateIPBlock returns at a CIDR that does not parse (sloppily): its excepts are not checked then (measured on
 * 1.28, 1.32 and 1.36: found by the additions differential).
 */
function ipBlockIssues(block: unknown, at: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(block)) return [];
  const cidr = typeof block.cidr === 'string' ? block.cidr : '';
  if (cidr === '') return [required(`${at}.cidr`)];
  const cidrErrs = cidrErrors(cidr, version, 'not a valid CIDR');
  const issues = invalidValue(`${at}.cidr`, cidr, cidrErrs, version);
  const outer = parseCidrSloppy(cidr);
  if (!outer) return issues;
  stringsOf(block.except).forEach((e, i) => {
    if (typeof e !== 'string') return;
    const path = `${at}.except[${i}]`;
    issues.push(...invalidValue(path, e, cidrErrors(e, version, 'not a valid CIDR'), version));
    // what parses sloppily is also compared with the cidr, as parsed sloppily too
    const inner = parseCidrSloppy(e);
    if (inner && !isStrictSubset(inner, outer)) {
      issues.push(...invalidValue(path, e, ['must be a strict subset of `cidr`'], version));
    }
  });
  return issues;
}
