import { arr, linuxIdIssues, localDescendingPathIssues, obj, str } from './pod-spec-common';
import { windowsOptionsIssues } from './pod-spec-windows';
import { child, index, invalid, notSupported, required, duplicate, forbidden, tooLong } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';

/*
 * Security contexts (ValidateSecurityContext, validatePodSpecSecurityContext): user and group ids, seccomp and
 * AppArmor profiles, privileged without privilege escalation, procMount, sysctls, fsGroupChangePolicy.
 */

const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

function profileIssues(path: string, profile: unknown, what: 'seccomp' | 'AppArmor'): Issue[] {
  if (profile == null) return [];
  const p = obj(profile);
  const type = str(p.type);
  const localhost = child(path, 'localhostProfile');
  if (what === 'seccomp' && type !== 'Localhost') {
    // validateSeccompProfileField: a bad type and a localhostProfile beside it are both reported (measured)
    return [
      ...(type === '' ? [required(child(path, 'type'))] : []),
      ...(type !== '' && !PROFILE_TYPES.includes(type) ? [notSupported(child(path, 'type'), type, PROFILE_TYPES)] : []),
      ...(p.localhostProfile != null ? [invalid(localhost, p, 'can only be set when seccomp type is Localhost')] : []),
    ];
  }
  if (type === '') return [required(child(path, 'type'))];
  if (!PROFILE_TYPES.includes(type)) return [notSupported(child(path, 'type'), type, PROFILE_TYPES)];
  // seccomp's unset only (an empty path is a relative one: accepted, measured), AppArmor's empty too
  if (type === 'Localhost' && (what === 'seccomp' ? p.localhostProfile == null : !p.localhostProfile)) {
    return [required(localhost, `must be set when ${what} type is Localhost`)];
  }
  if (type !== 'Localhost' && p.localhostProfile != null) {
    return [invalid(localhost, p, `can only be set when ${what} type is Localhost`)];
  }
  if (type === 'Localhost') return localhostProfileIssues(localhost, str(p.localhostProfile), what);
  return [];
}

/**
 * A Localhost profile's path: seccomp's a relative one without `..` (validateLocalDescendingPath), AppArmor's not
 * padded with whitespace (ValidateAppArmorProfileField; measured on 1.32 and 1.36) and at most PATH_MAX - 1 bytes.
 */
function localhostProfileIssues(path: string, profile: string, what: 'seccomp' | 'AppArmor'): Issue[] {
  if (what === 'seccomp') return localDescendingPathIssues(path, profile);
  const issues: Issue[] = [];
  if (profile.trim() !== profile) issues.push(invalid(path, profile, 'must not be padded with whitespace'));
  else if (profile === '') issues.push(required(path, 'must be set when AppArmor type is Localhost'));
  if (new TextEncoder().encode(profile).length > 4095) issues.push(tooLong(path, 'may not be more than 4095 bytes'));
  return issues;
}

/**
 * What both levels check: ids, seccomp, windowsOptions, AppArmor (a field from 1.30: 1.28's decoding refuses it).
 */
function commonIssues(path: string, sc: Record<string, any>, version: KubernetesVersion): Issue[] {
  return [
    ...linuxIdIssues(child(path, 'runAsUser'), sc.runAsUser),
    ...linuxIdIssues(child(path, 'runAsGroup'), sc.runAsGroup),
    ...profileIssues(child(path, 'seccompProfile'), sc.seccompProfile, 'seccomp'),
    ...windowsOptionsIssues(child(path, 'windowsOptions'), sc.windowsOptions),
    ...(minorOf(version) >= 30 ? profileIssues(child(path, 'appArmorProfile'), sc.appArmorProfile, 'AppArmor') : []),
  ];
}

/**
 * A container's securityContext. procMount is checked from 1.33 (ProcMountType on by default; measured: 1.32 drops
 * a bad value, 1.36 refuses it).
 *
 * @internal
 */
export function containerSecurityContextIssues(path: string, raw: unknown, version: KubernetesVersion): Issue[] {
  if (raw == null) return [];
  const sc = obj(raw);
  const issues = commonIssues(path, sc, version);
  if (minorOf(version) >= 33 && sc.procMount != null && !['Default', 'Unmasked'].includes(sc.procMount)) {
    issues.push(notSupported(child(path, 'procMount'), sc.procMount, ['Default', 'Unmasked']));
  }
  if (sc.allowPrivilegeEscalation === false) {
    if (sc.privileged === true) {
      issues.push(invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    }
    if (arr(obj(sc.capabilities).add).includes('CAP_SYS_ADMIN')) {
      issues.push(
        invalid(path, sc, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'),
      );
    }
  }
  return issues;
}

const SYSCTL = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;
const SYSCTL_MSG =
  'must have at most 253 characters and match regex ^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$';

/** The pod's securityContext at `path` (`spec.securityContext`). @internal */
export function podSecurityContextIssues(
  path: string,
  raw: unknown,
  spec: Record<string, any>,
  version: KubernetesVersion,
): Issue[] {
  const sc = obj(raw);
  const issues = [
    ...commonIssues(path, sc, version),
    ...linuxIdIssues(child(path, 'fsGroup'), sc.fsGroup),
    ...arr(sc.supplementalGroups).flatMap((g, i) => linuxIdIssues(index(child(path, 'supplementalGroups'), i), g)),
  ];
  if (sc.fsGroupChangePolicy != null && !['Always', 'OnRootMismatch'].includes(sc.fsGroupChangePolicy)) {
    issues.push(notSupported(child(path, 'fsGroupChangePolicy'), sc.fsGroupChangePolicy, ['Always', 'OnRootMismatch']));
  }
  // spec.shareProcessNamespace, reported under the securityContext (the internal type keeps it there)
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    issues.push(
      invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'),
    );
  }
  const names = new Set<string>();
  arr(sc.sysctls).forEach((s, i) => {
    const at = child(index(child(path, 'sysctls'), i), 'name');
    const name = str(obj(s).name);
    if (name === '') {
      issues.push(required(at));
    } else if (name.length > 253 || !SYSCTL.test(name)) {
      issues.push(invalid(at, name, SYSCTL_MSG));
    } else if (names.has(name)) {
      issues.push(duplicate(at, name));
    }
    issues.push(...hostSysctlIssues(at, name, spec, version));
    names.add(name);
  });
  // supplementalGroupsPolicy and seLinuxChangePolicy: dropped by 1.32 (their gates off), checked by 1.36
  if (minorOf(version) >= 33) {
    if (sc.supplementalGroupsPolicy != null && !['Merge', 'Strict'].includes(sc.supplementalGroupsPolicy)) {
      issues.push(
        notSupported(child(path, 'supplementalGroupsPolicy'), sc.supplementalGroupsPolicy, ['Merge', 'Strict']),
      );
    }
    // AllowOnlyRecursiveSELinuxChangePolicy: `Recursive` alone while SELinuxMount is off (1.36 measured)
    if (sc.seLinuxChangePolicy != null && sc.seLinuxChangePolicy !== 'Recursive') {
      issues.push(notSupported(child(path, 'seLinuxChangePolicy'), sc.seLinuxChangePolicy, ['Recursive']));
    }
  }
  return issues;
}

/**
 * The sysctl's namespace (utilsysctl.GetNamespace, of the name in dots: NormalizeName swaps `/` and `.` when a slash
 * comes first).
 */
function sysctlNamespace(raw: string): 'net' | 'ipc' | undefined {
  const first = raw.search(/[./]/);
  let name = first >= 0 && raw[first] === '/' ? raw.replace(/[./]/g, (c) => (c === '.' ? '/' : '.')) : raw;
  const star = name.indexOf('*');
  if (star >= 0) name = name.slice(0, star);
  if (name === 'kernel.sem' || ['kernel.shm', 'kernel.msg', 'fs.mqueue.'].some((p) => name.startsWith(p))) {
    return 'ipc';
  }
  return name.startsWith('net.') ? 'net' : undefined;
}

/**
 * ValidateHostSysctl: a namespaced sysctl of a namespace the pod shares with the host. From 1.29 (measured: 1.28
 * accepts `net.core.somaxconn` with hostNetwork, 1.32 refuses it).
 */
function hostSysctlIssues(path: string, name: string, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  if (minorOf(version) < 29) return [];
  const ns = sysctlNamespace(name);
  if (ns === 'net' && spec.hostNetwork === true) {
    return [invalid(path, name, "may not be specified when 'hostNetwork' is true")];
  }
  if (ns === 'ipc' && spec.hostIPC === true) {
    return [invalid(path, name, "may not be specified when 'hostIPC' is true")];
  }
  return [];
}

/**
 * ValidateSecurityContext's procMount `Unmasked` of each container (init and ephemeral ones too), which needs a pod in
 * a user namespace of its own (`hostUsers: false`; the default is true). From 1.33, as procMount (1.36 measured).
 *
 * @internal
 */
export function unmaskedProcMountIssues(path: string, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  if (minorOf(version) < 33 || spec.hostUsers === false) return [];
  return ['containers', 'initContainers', 'ephemeralContainers'].flatMap((field) =>
    arr(spec[field]).flatMap((c, i) => {
      const procMount = obj(obj(c).securityContext).procMount;
      const at = child(index(child(path, field), i), 'securityContext', 'procMount');
      return procMount === 'Unmasked' ? [invalid(at, procMount, '`hostUsers` must be false to use `Unmasked`')] : [];
    }),
  );
}

/**
 * validateHostUsers: a pod in a user namespace of its own (`hostUsers: false`) shares no other namespace with the
 * host (the paths `HostPID` and `HostIPC` are upstream's). hostUsers is dropped by 1.32 (UserNamespacesSupport off)
 * and checked from 1.33.
 *
 * @internal
 */
export function hostUsersIssues(path: string, spec: Record<string, any>, version: KubernetesVersion): Issue[] {
  if (minorOf(version) < 33 || spec.hostUsers !== false) return [];
  // 1.36's wording (measured; older sources say `pod.Spec.HostUsers`)
  const detail = 'when `hostUsers` is false';
  return [
    ...(spec.hostNetwork === true ? [forbidden(child(path, 'hostNetwork'), detail)] : []),
    ...(spec.hostPID === true ? [forbidden(child(path, 'HostPID'), detail)] : []),
    ...(spec.hostIPC === true ? [forbidden(child(path, 'HostIPC'), detail)] : []),
  ];
}
