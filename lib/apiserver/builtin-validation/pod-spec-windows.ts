import { arr, containersWithPath, dnsSubdomainIssues, obj, str } from './pod-spec-common';
import { child, forbidden, invalid, notSupported, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * Windows pods (pkg/apis/core/validation): the securityContexts' windowsOptions (validateWindowsSecurityContextOptions,
 * at either level), HostProcess pods (validateWindowsHostProcessPod) and the fields an `os` rules out (validateOS,
 * validateLinux, validateWindows). Measured on 1.28, 1.32 and 1.36.
 */

const MAX_GMSA_SPEC_KIB = 64;
const MAX_DOMAIN_LENGTH = 256;
const MAX_USER_LENGTH = 104;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;
const NETBIOS = /^[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}$/;
const DNS_LABEL = '[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?';
const WINDOWS_DOMAIN_DNS = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`);
const USER_BAD_CHARS = /["/\\:;|=,+*?<>@[\]]/;
const USER_DOTS_SPACES = /^[. ]+$/;

function runAsUserNameIssues(path: string, name: string): Issue[] {
  const bad = (msg: string) => invalid(path, name, msg);
  if (name.length === 0) return [bad('runAsUserName cannot be an empty string')];
  if (CONTROL.test(name)) return [bad('runAsUserName cannot contain control characters')];
  const parts = name.split('\\');
  if (parts.length > 2) return [bad('runAsUserName cannot contain more than one backslash')];
  const [domain, user] = parts.length === 1 ? ['', parts[0]] : parts;
  const issues: Issue[] = [];
  // lengths in bytes, as Go's len
  if (Buffer.byteLength(domain) >= MAX_DOMAIN_LENGTH) {
    issues.push(bad(`runAsUserName's Domain length must be under ${MAX_DOMAIN_LENGTH} characters`));
  }
  if (parts.length === 2 && !(NETBIOS.test(domain) || WINDOWS_DOMAIN_DNS.test(domain))) {
    issues.push(bad("runAsUserName's Domain doesn't match the NetBios nor the DNS format"));
  }
  if (user.length === 0) {
    issues.push(bad("runAsUserName's User cannot be empty"));
  } else if (user.length > MAX_USER_LENGTH) {
    issues.push(bad(`runAsUserName's User length must not be longer than ${MAX_USER_LENGTH} characters`));
  }
  if (USER_DOTS_SPACES.test(user)) issues.push(bad("runAsUserName's User cannot contain only periods or spaces"));
  if (USER_BAD_CHARS.test(user)) {
    issues.push(bad('runAsUserName\'s User cannot contain the following characters: "/\\:;|=,+*?<>@[]'));
  }
  return issues;
}

/** validateWindowsSecurityContextOptions of the windowsOptions at `path` (either level). @internal */
export function windowsOptionsIssues(path: string, raw: unknown): Issue[] {
  if (raw == null) return [];
  const w = obj(raw);
  const issues: Issue[] = [];
  if (typeof w.gmsaCredentialSpecName === 'string') {
    issues.push(...dnsSubdomainIssues(child(path, 'gmsaCredentialSpecName'), w.gmsaCredentialSpecName));
  }
  if (typeof w.gmsaCredentialSpec === 'string') {
    const at = child(path, 'gmsaCredentialSpec');
    const length = Buffer.byteLength(w.gmsaCredentialSpec);
    if (length === 0) {
      issues.push(invalid(at, '', 'gmsaCredentialSpec cannot be an empty string'));
    } else if (length > MAX_GMSA_SPEC_KIB * 1024) {
      issues.push(invalid(at, w.gmsaCredentialSpec, `gmsaCredentialSpec size must be under ${MAX_GMSA_SPEC_KIB} KiB`));
    }
  }
  if (typeof w.runAsUserName === 'string') {
    issues.push(...runAsUserNameIssues(child(path, 'runAsUserName'), w.runAsUserName));
  }
  return issues;
}

const hostProcessOf = (sc: unknown): boolean | undefined => {
  const v = obj(obj(sc).windowsOptions).hostProcess;
  return typeof v === 'boolean' ? v : undefined;
};

/**
 * validateWindowsHostProcessPod: a container's hostProcess equal to the pod's when both are set; all containers
 * HostProcess ones (set or inherited) or none; such a pod on the host's network.
 *
 * @internal
 */
export function hostProcessIssues(path: string, spec: Record<string, any>): Issue[] {
  const pod = hostProcessOf(spec.securityContext);
  const issues: Issue[] = [];
  const containers = containersWithPath(path, spec);
  let hostProcessCount = 0;
  for (const [c, at] of containers) {
    const own = hostProcessOf(c.securityContext);
    if (pod !== undefined && own !== undefined && pod !== own) {
      issues.push(
        invalid(
          child(at, 'securityContext', 'windowsOptions', 'hostProcess'),
          own,
          `pod hostProcess value must be identical if both are specified, was ${pod}`,
        ),
      );
    }
    if (own ?? pod) hostProcessCount++;
  }
  if (hostProcessCount > 0) {
    if (hostProcessCount !== containers.length) {
      issues.push(
        invalid(
          path,
          '',
          'If pod contains any hostProcess containers then all containers must be HostProcess containers',
        ),
      );
    }
    if (spec.hostNetwork !== true) {
      issues.push(
        invalid(
          child(path, 'hostNetwork'),
          false,
          'hostNetwork must be true if pod contains any hostProcess containers',
        ),
      );
    }
  }
  return issues;
}

/** What a Windows pod's securityContext may not set, from the version that has it (older ones drop or refuse it). */
const POD_FIELDS_OF_LINUX: ReadonlyArray<[string, number]> = [
  ['appArmorProfile', 30],
  ['seLinuxOptions', 0],
  ['seccompProfile', 0],
  ['fsGroup', 0],
  ['fsGroupChangePolicy', 0],
  ['sysctls', 0],
  ['runAsUser', 0],
  ['runAsGroup', 0],
  ['supplementalGroups', 0],
  // dropped by 1.32 (their gates off), checked by 1.36 (measured)
  ['supplementalGroupsPolicy', 33],
  ['seLinuxChangePolicy', 33],
];

const CONTAINER_FIELDS_OF_LINUX: ReadonlyArray<[string, number]> = [
  ['appArmorProfile', 30],
  ['seLinuxOptions', 0],
  ['seccompProfile', 0],
  ['capabilities', 0],
  ['readOnlyRootFilesystem', 0],
  ['privileged', 0],
  ['allowPrivilegeEscalation', 0],
  // set at all: refused by 1.32 too (measured), whose value checks start at 1.33
  ['procMount', 0],
  ['runAsUser', 0],
  ['runAsGroup', 0],
];

/** validateWindows: what a Windows pod may not set, at either level. */
function windowsPodIssues(path: string, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  const cannot = (at: string) => forbidden(at, 'cannot be set for a windows pod');
  const issues: Issue[] = [];
  const scPath = child(path, 'securityContext');
  const sc = obj(spec.securityContext);
  for (const [f, since] of POD_FIELDS_OF_LINUX) {
    // sysctls when not empty (len > 0), the others when set (an empty supplementalGroups list too)
    const set = f === 'sysctls' ? arr(sc[f]).length > 0 : sc[f] != null;
    if (minorOf(version) >= since && set) issues.push(cannot(child(scPath, f)));
  }
  // hostUsers: dropped by 1.32 (UserNamespacesSupport off), on from 1.33
  if (minorOf(version) >= 33 && spec.hostUsers != null) issues.push(cannot(child(path, 'hostUsers')));
  if (spec.hostPID === true) issues.push(cannot(child(path, 'hostPID')));
  if (spec.hostIPC === true) issues.push(cannot(child(path, 'hostIPC')));
  if (spec.shareProcessNamespace != null) issues.push(cannot(child(path, 'shareProcessNamespace')));
  for (const [c, at] of containersWithPath(path, spec)) {
    if (c.securityContext == null) continue;
    const csc = obj(c.securityContext);
    for (const [f, since] of CONTAINER_FIELDS_OF_LINUX) {
      if (minorOf(version) >= since && csc[f] != null) issues.push(cannot(child(at, 'securityContext', f)));
    }
  }
  return issues;
}

/** validateOS, then validateLinux or validateWindows. @internal */
export function osIssues(path: string, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  if (spec.os == null) return [];
  const name = str(obj(spec.os).name);
  const osPath = child(path, 'os');
  // 1.36 says `Required value` alone (measured), 1.28 and 1.32 `cannot be empty`
  if (name === '') return [required(child(osPath, 'name'), minorOf(version) >= 36 ? '' : 'cannot be empty')];
  // upstream reports it at `os`, not `os.name`
  if (!['linux', 'windows'].includes(name)) return [notSupported(osPath, name, ['linux', 'windows'])];
  if (name === 'windows') return windowsPodIssues(path, spec, version);
  const linuxOnly = (at: string) =>
    forbidden(child(at, 'windowsOptions'), 'windows options cannot be set for a linux pod');
  const issues: Issue[] = [];
  if (obj(spec.securityContext).windowsOptions != null) issues.push(linuxOnly(child(path, 'securityContext')));
  for (const [c, at] of containersWithPath(path, spec)) {
    if (obj(c.securityContext).windowsOptions != null) issues.push(linuxOnly(child(at, 'securityContext')));
  }
  return issues;
}
