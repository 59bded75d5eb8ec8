import { arr, linuxIdIssues, obj, str } from './pod-spec-common';
import { child, index, invalid, notSupported, required, duplicate } from '../../apimachinery/field';
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
  if (type === '') return [required(child(path, 'type'))];
  if (!PROFILE_TYPES.includes(type)) return [notSupported(child(path, 'type'), type, PROFILE_TYPES)];
  if (type === 'Localhost' && !p.localhostProfile) {
    return [required(localhost, `must be set when ${what} type is Localhost`)];
  }
  if (type !== 'Localhost' && p.localhostProfile != null) {
    return [invalid(localhost, p, `can only be set when ${what} type is Localhost`)];
  }
  return [];
}

/** What both levels check: ids, seccomp, AppArmor (a field from 1.30: 1.28's decoding refuses it). */
function commonIssues(path: string, sc: Record<string, any>, version: KubernetesVersion): Issue[] {
  return [
    ...linuxIdIssues(child(path, 'runAsUser'), sc.runAsUser),
    ...linuxIdIssues(child(path, 'runAsGroup'), sc.runAsGroup),
    ...profileIssues(child(path, 'seccompProfile'), sc.seccompProfile, 'seccomp'),
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
    names.add(name);
  });
  return issues;
}
