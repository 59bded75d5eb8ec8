import { isIP } from 'net';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * IP addresses and CIDRs as the apiserver reads them in built-in objects (Service clusterIPs and externalIPs,
 * loadBalancerSourceRanges, NetworkPolicy ipBlocks): netutils.ParseIPSloppy / ParseCIDRSloppy (leading zeros
 * tolerated) up to 1.35; from 1.36 the StrictIPCIDRValidation feature gate is on by default (KEP-4858, beta in
 * kubernetes/kubernetes#137053; measured on 1.36): leading zeros, IPv4-mapped IPv6 addresses and CIDRs with bits set
 * beyond their prefix are refused.
 */

/** The first version whose apiserver validates IPs and CIDRs strictly (KEP-4858 beta). */
const STRICT_IP_CIDR = 36;

/**
 * The first version that words a bad CIDR `must be a valid CIDR value, (e.g. …)` and checks each of a Service's
 * loadBalancerSourceRanges on its own (apimachinery's IsValidCIDR with a field path); before, `not a valid CIDR`
 * (NetworkPolicy) and one error for the whole list (Service). Measured: 1.28 has the old wording, 1.32 the new;
 * placed at 1.30 (kubernetes/kubernetes's IP validation clean-up of that release), 1.29 and 1.31 have no apiserver
 * in the suites.
 */
export const CIDR_FIELD_ERRORS = 30;

/** An IP address as bytes, with its family. @internal */
export interface ParsedIp {
  readonly family: 4 | 6;
  readonly bytes: readonly number[];
}

/** A parsed CIDR: its address, prefix length and family. @internal */
export interface ParsedCidr extends ParsedIp {
  readonly prefix: number;
}

/** IsValidIP's message for what is no IP at all. @internal */
export const NOT_AN_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

function v4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^[0-9]{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.map(Number);
}

/** ParseIPSloppy: Go's net.ParseIP that tolerates leading zeros in IPv4 parts (also in an IPv6 address's IPv4 tail). @internal */
export function parseIpSloppy(text: string): ParsedIp | undefined {
  const v4 = v4Bytes(text);
  if (v4) return { family: 4, bytes: v4 };
  if (!text.includes(':') || text.includes('%')) return undefined;
  let head = text;
  const dotted = /^(.*:)([0-9.]+\.[0-9.]+)$/.exec(text);
  if (dotted) {
    const b = v4Bytes(dotted[2]);
    if (!b) return undefined;
    head = `${dotted[1]}${((b[0] << 8) | b[1]).toString(16)}:${((b[2] << 8) | b[3]).toString(16)}`;
  }
  if (isIP(head) !== 6) return undefined;
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const all = right === undefined ? l : [...l, ...new Array(8 - l.length - r.length).fill(0), ...r];
  return { family: 6, bytes: all.flatMap((g) => [g >> 8, g & 0xff]) };
}

function strict(version: KubernetesVersion): boolean {
  return minorOf(version) >= STRICT_IP_CIDR;
}

function hasLeadingZeros(text: string): boolean {
  const v4 = /(?:^|:)((?:\d+\.){3}\d+)$/.exec(text);
  return !!v4 && v4[1].split('.').some((p) => p.length > 1 && p.startsWith('0'));
}

function isV4Mapped(ip: ParsedIp): boolean {
  return (
    ip.family === 6 && ip.bytes.slice(0, 10).every((b) => b === 0) && ip.bytes[10] === 0xff && ip.bytes[11] === 0xff
  );
}

/** IsValidIPForLegacyField: what is wrong with `text` as an IP address on `version`, none when it is valid. @internal */
export function ipErrors(text: string, version: KubernetesVersion): string[] {
  const ip = parseIpSloppy(text);
  if (!ip) return [NOT_AN_IP];
  if (strict(version) && hasLeadingZeros(text)) return ['must not have leading 0s'];
  if (strict(version) && isV4Mapped(ip)) return ['must not be an IPv4-mapped IPv6 address'];
  return [];
}

/** ParseCIDRSloppy. @internal */
export function parseCidrSloppy(text: string): ParsedCidr | undefined {
  const slash = text.indexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIpSloppy(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (!ip || !/^[0-9]{1,3}$/.test(bits)) return undefined;
  const prefix = Number(bits);
  // an IPv4-mapped address in an IPv6 CIDR is an IPv6 CIDR (Go's net.ParseCIDR)
  return prefix <= ip.bytes.length * 8 ? { ...ip, prefix } : undefined;
}

function bitsBeyondPrefix(cidr: ParsedCidr): boolean {
  return cidr.bytes.some((b, i) => {
    const keep = Math.max(0, Math.min(8, cidr.prefix - i * 8));
    return (b & (0xff >> keep)) !== 0;
  });
}

/**
 * IsValidCIDRForLegacyField: what is wrong with `text` as a CIDR on `version`, none when it is valid. `oldWording` is
 * the message of versions before CIDR_FIELD_ERRORS (NetworkPolicy's `not a valid CIDR`), if the caller had one.
 *
 * @internal
 */
export function cidrErrors(text: string, version: KubernetesVersion, oldWording?: string): string[] {
  const cidr = parseCidrSloppy(text);
  if (!cidr) return [oldWording && minorOf(version) < CIDR_FIELD_ERRORS ? oldWording : NOT_A_CIDR];
  if (strict(version) && hasLeadingZeros(text.slice(0, text.indexOf('/')))) return ['must not have leading 0s'];
  if (strict(version) && isV4Mapped(cidr)) return ['must not be an IPv4-mapped IPv6 address'];
  if (strict(version) && bitsBeyondPrefix(cidr)) return ['must not have bits set beyond the prefix length'];
  return [];
}

/** Whether `inner` is a strict subset of `outer` (same family, longer prefix, inside it). @internal */
export function isStrictSubset(inner: ParsedCidr, outer: ParsedCidr): boolean {
  if (inner.family !== outer.family || inner.prefix <= outer.prefix) return false;
  return outer.bytes.every((b, i) => {
    const keep = Math.max(0, Math.min(8, outer.prefix - i * 8));
    const mask = (0xff << (8 - keep)) & 0xff;
    return (b & mask) === (inner.bytes[i] & mask);
  });
}
