import { CIDR_FIELD_ERRORS, cidrErrors, ipErrors, parseIpSloppy } from './networking-ip';
import { DefaultedServiceSpec } from './services-defaults';
import {
  duplicateValue,
  goStringList,
  invalidShown,
  invalidValue,
  listOf,
  stringsOf,
  unsupportedValue,
} from './services-field-errors';
import { forbidden } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * A Service's IP fields as the apiserver checks them on create (ValidateServiceClusterIPsRelatedFields, externalIPs,
 * loadBalancerSourceRanges). What depends on the cluster is not checked: whether a clusterIP is inside the service
 * CIDR and free, whether the cluster has IPv6 or dual-stack (`ipFamilies: [IPv6]`, `RequireDualStack` on an IPv4-only
 * cluster are refused there).
 */

const IP_FAMILIES = ['IPv4', 'IPv6'] as const;
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'] as const;

/**
 * clusterIP, clusterIPs, ipFamilies and ipFamilyPolicy as ValidateService checks them: an ExternalName Service's
 * refused whole; the others' by `clusterIpRelatedIssues`, and NodePort and LoadBalancer Services not headless.
 *
 * @internal
 */
export function clusterIpIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const { clusterIPs, raw } = spec;
  if (spec.type === 'ExternalName') {
    // measured: an ExternalName Service's IP fields are refused, and nothing else about them is said
    if (clusterIPs.length > 0) issues.push(forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (listOf(raw.ipFamilies).length > 0) {
      issues.push(forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    }
    if (raw.ipFamilyPolicy !== undefined && raw.ipFamilyPolicy !== null) {
      issues.push(forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    }
    return issues;
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && clusterIPs[0] === 'None') {
    issues.push(
      ...invalidValue('spec.clusterIPs[0]', 'None', [`may not be set to 'None' for ${spec.type} services`], version),
    );
  }
  return [...clusterIpRelatedIssues(spec, version), ...issues];
}

/**
 * ValidateServiceClusterIPsRelatedFields of a Service other than ExternalName: clusterIPs agreeing with clusterIP,
 * each an IP (or `None` alone), one per family, ipFamilies and ipFamilyPolicy. The Service REST storage runs it
 * before anything else of the create (its BeginCreate hook, before ObjectMeta and ValidateService): where it finds
 * errors, they are all the apiserver says (measured on 1.28, 1.32 and 1.36: a bad clusterIP beside a bad name and
 * port is refused for its clusterIP alone).
 *
 * @internal
 */
export function clusterIpRelatedIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  if (spec.type === 'ExternalName') return [];
  const issues: Issue[] = [];
  const { clusterIP, clusterIPs, raw } = spec;
  const shownIPs = () => goStringList(clusterIPs, version);
  if (clusterIP === '' && clusterIPs.length > 0) {
    issues.push(
      invalidShown('spec.clusterIPs', clusterIPs, shownIPs(), 'must be empty when `clusterIP` is not specified'),
    );
  } else if (clusterIPs.length > 0 && clusterIPs[0] !== clusterIP) {
    issues.push(invalidShown('spec.clusterIPs', clusterIPs, shownIPs(), 'first value must match `clusterIP`'));
  }
  const headless = clusterIPs[0] === 'None';
  if (clusterIPs.some((ip, i) => ip === 'None' && i > 0) || (headless && clusterIPs.length > 1)) {
    issues.push(invalidShown('spec.clusterIPs', clusterIPs, shownIPs(), "'None' must be the first and only value"));
  }
  const families = new Set<number>();
  let sameFamily = false;
  clusterIPs.forEach((ip, i) => {
    if (ip === 'None') return;
    const errs = ipErrors(ip, version);
    issues.push(...invalidValue(`spec.clusterIPs[${i}]`, ip, errs, version));
    const parsed = errs.length === 0 ? parseIpSloppy(ip) : undefined;
    if (parsed) {
      if (families.has(parsed.family)) sameFamily = true;
      families.add(parsed.family);
    }
  });
  if (clusterIPs.length > 2) {
    issues.push(invalidShown('spec.clusterIPs', clusterIPs, shownIPs(), 'may only hold up to 2 values'));
  } else if (sameFamily) {
    issues.push(
      invalidShown('spec.clusterIPs', clusterIPs, shownIPs(), 'may specify no more than one IP for each IP family'),
    );
  }
  const policy = raw.ipFamilyPolicy;
  if (typeof policy === 'string' && !(IP_FAMILY_POLICIES as readonly string[]).includes(policy)) {
    issues.push(unsupportedValue('spec.ipFamilyPolicy', policy, IP_FAMILY_POLICIES, version));
  }
  const seen = new Set<string>();
  stringsOf(raw.ipFamilies).forEach((f, i) => {
    if (typeof f !== 'string') return;
    if (!(IP_FAMILIES as readonly string[]).includes(f)) {
      issues.push(unsupportedValue(`spec.ipFamilies[${i}]`, f, IP_FAMILIES, version));
    } else if (seen.has(f)) {
      issues.push(duplicateValue(`spec.ipFamilies[${i}]`, f, version));
    }
    seen.add(f);
  });
  if (policy === 'SingleStack') {
    if (listOf(raw.ipFamilies).length > 1) {
      issues.push(
        ...invalidValue(
          'spec.ipFamilyPolicy',
          policy,
          ["must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"],
          version,
        ),
      );
    }
    if (clusterIPs.length > 1) {
      issues.push(
        ...invalidValue(
          'spec.ipFamilyPolicy',
          policy,
          ["must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"],
          version,
        ),
      );
    }
  }
  return issues;
}

const SPECIAL_RANGES: readonly {
  readonly test: (b: readonly number[], family: 4 | 6) => boolean;
  readonly message: string;
}[] = [
  { test: (b) => b.every((x) => x === 0), message: 'may not be unspecified' },
  {
    test: (b, f) => (f === 4 ? b[0] === 127 : b.slice(0, 15).every((x) => x === 0) && b[15] === 1),
    message: 'may not be in the loopback range (127.0.0.0/8, ::1/128)',
  },
  {
    test: (b, f) => (f === 4 ? b[0] === 169 && b[1] === 254 : b[0] === 0xfe && (b[1] & 0xc0) === 0x80),
    message: 'may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  },
  {
    test: (b, f) => (f === 4 ? b[0] === 224 && b[1] === 0 && b[2] === 0 : b[0] === 0xff && (b[1] & 0x0f) === 0x02),
    message: 'may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)',
  },
];

/** externalIPs: each an IP, none of the special ones (ValidateNonSpecialIP). @internal */
export function externalIpIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  return stringsOf(spec.raw.externalIPs).flatMap((ip, i) => {
    if (typeof ip !== 'string') return [];
    const path = `spec.externalIPs[${i}]`;
    const errs = ipErrors(ip, version);
    if (errs.length > 0) return invalidValue(path, ip, errs, version);
    const parsed = parseIpSloppy(ip)!;
    const special = SPECIAL_RANGES.find((r) => r.test(parsed.bytes, parsed.family));
    if (!special) return [];
    const detail =
      special.message === 'may not be unspecified'
        ? `may not be unspecified (${parsed.family === 4 ? '0.0.0.0' : '::'})`
        : special.message;
    return invalidValue(path, ip, [detail], version);
  });
}

/**
 * loadBalancerSourceRanges (the apiserver's path is spelled `spec.LoadBalancerSourceRanges`): only for LoadBalancer
 * Services, each a CIDR (spaces around it tolerated). Before CIDR_FIELD_ERRORS, one error for the whole list
 * (measured on 1.28).
 *
 * @internal
 */
export function sourceRangeIssues(spec: DefaultedServiceSpec, version: KubernetesVersion): Issue[] {
  const ranges = stringsOf(spec.raw.loadBalancerSourceRanges).filter((r): r is string => typeof r === 'string');
  if (ranges.length === 0) return [];
  const path = 'spec.LoadBalancerSourceRanges';
  const issues: Issue[] = [];
  if (spec.type !== 'LoadBalancer') issues.push(forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  if (minorOf(version) < CIDR_FIELD_ERRORS) {
    if (ranges.some((r) => cidrErrors(r.trim(), version).length > 0)) {
      const shown = `[${ranges.join(' ')}]`;
      issues.push(
        ...invalidValue(
          path,
          shown,
          ['must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '],
          version,
        ),
      );
    }
    return issues;
  }
  ranges.forEach((r, i) =>
    issues.push(...invalidValue(`${path}[${i}]`, r.trim(), cidrErrors(r.trim(), version), version)),
  );
  return issues;
}
