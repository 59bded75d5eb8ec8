import { manifestRef } from './rbac-lint';
import { Issue } from '../apimachinery/issue';

// Pod Security Standards "restricted" (which includes "baseline"), as the PodSecurity admission plugin checks them.
// https://kubernetes.io/docs/concepts/security/pod-security-standards/
const ALLOWED_VOLUME_TYPES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];
const ALLOWED_SECCOMP = ['RuntimeDefault', 'Localhost'];
const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;
const ALLOWED_SELINUX_TYPES = ['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t'];
const SAFE_SYSCTLS = [
  'kernel.shm_rmid_forced',
  'net.ipv4.ip_local_port_range',
  'net.ipv4.ip_unprivileged_port_start',
  'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range',
  'net.ipv4.ip_local_reserved_ports',
  'net.ipv4.tcp_keepalive_time',
  'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl',
  'net.ipv4.tcp_keepalive_probes',
];

type Json = Record<string, any>;

/** Where the pod spec of a workload kind lives, or undefined for kinds without pods. @internal */
export function podSpecPath(kind: string | undefined): string[] | undefined {
  switch (kind) {
    case 'Pod':
      return ['spec'];
    case 'Deployment':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'ReplicaSet':
    case 'Job':
    case 'ReplicationController':
      return ['spec', 'template', 'spec'];
    case 'PodTemplate':
      return ['template', 'spec'];
    case 'CronJob':
      return ['spec', 'jobTemplate', 'spec', 'template', 'spec'];
    default:
      return undefined;
  }
}

/**
 * Checks every pod template among `manifests` against Pod Security "restricted".
 * PodSecurity admission only warns for workloads and rejects their Pods later, so this runs at synth.
 * Not covered: Windows `hostProcess` and the AppArmor pod annotations (pre-1.30 spelling); the
 * `appArmorProfile` field is checked.
 */
export function checkPodSecurityRestricted(manifests: readonly unknown[]): Issue[] {
  const issues: Issue[] = [];
  for (const raw of manifests) {
    const m = raw as Json;
    const specPath = podSpecPath(m?.kind);
    if (!specPath) continue;
    const spec = specPath.reduce<Json | undefined>((o, k) => o?.[k], m);
    if (!spec) continue;
    issues.push(...checkPodSpec(spec, `${manifestRef(m)}: ${specPath.join('.')}`));
  }
  return issues;
}

/** Pod Security "restricted" findings for one pod spec; `at` prefixes every field path. @internal */
export function checkPodSpec(spec: Json, at: string): Issue[] {
  const issues: Issue[] = [];
  const fail = (field: string, message: string, value?: unknown) =>
    issues.push({ path: `${at}.${field}`, message, value });
  for (const f of ['hostNetwork', 'hostPID', 'hostIPC'] as const) {
    if (spec[f] === true) fail(f, 'host namespaces are forbidden', true);
  }
  (spec.volumes ?? []).forEach((v: Json, i: number) => {
    const type = Object.keys(v).find((k) => k !== 'name');
    if (type && !ALLOWED_VOLUME_TYPES.includes(type)) {
      fail(
        `volumes[${i}]`,
        `volume type '${type}' is not allowed; use one of ${ALLOWED_VOLUME_TYPES.join(', ')}`,
        type,
      );
    }
  });
  const pod = spec.securityContext ?? {};
  if (pod.runAsUser === 0) fail('securityContext.runAsUser', 'must not be 0 (root)', 0);
  if (pod.runAsNonRoot === false) fail('securityContext.runAsNonRoot', 'must not be false', false);
  checkSeccomp(pod.seccompProfile, 'securityContext.seccompProfile.type', fail);
  checkSeLinux(pod.seLinuxOptions, 'securityContext.seLinuxOptions', fail);
  checkAppArmor(pod.appArmorProfile, 'securityContext.appArmorProfile.type', fail);
  (pod.sysctls ?? []).forEach((s: Json, i: number) => {
    if (!SAFE_SYSCTLS.includes(s.name)) {
      fail(`securityContext.sysctls[${i}].name`, 'only safe sysctls are allowed', s.name);
    }
  });

  for (const list of CONTAINER_LISTS) {
    (spec[list] ?? []).forEach((c: Json, i: number) => {
      const cf = `${list}[${i}]`;
      const sc = c.securityContext ?? {};
      if (sc.privileged === true) fail(`${cf}.securityContext.privileged`, 'privileged containers are forbidden', true);
      (c.ports ?? []).forEach((p: Json, j: number) => {
        if (p.hostPort) fail(`${cf}.ports[${j}].hostPort`, 'host ports are forbidden', p.hostPort);
      });
      if (sc.allowPrivilegeEscalation !== false) {
        fail(`${cf}.securityContext.allowPrivilegeEscalation`, 'must be set to false', sc.allowPrivilegeEscalation);
      }
      if (sc.runAsNonRoot === false) {
        fail(`${cf}.securityContext.runAsNonRoot`, 'must not be false', false);
      } else if (sc.runAsNonRoot !== true && pod.runAsNonRoot !== true) {
        fail(`${cf}.securityContext.runAsNonRoot`, 'must be true on the container or the pod');
      }
      if (sc.runAsUser === 0) fail(`${cf}.securityContext.runAsUser`, 'must not be 0 (root)', 0);
      if (sc.seccompProfile !== undefined) {
        checkSeccomp(sc.seccompProfile, `${cf}.securityContext.seccompProfile.type`, fail);
      } else if (pod.seccompProfile === undefined) {
        fail(
          `${cf}.securityContext.seccompProfile.type`,
          'must be RuntimeDefault or Localhost on the container or the pod',
        );
      }
      checkSeLinux(sc.seLinuxOptions, `${cf}.securityContext.seLinuxOptions`, fail);
      checkAppArmor(sc.appArmorProfile, `${cf}.securityContext.appArmorProfile.type`, fail);
      if (sc.procMount !== undefined && sc.procMount !== 'Default') {
        fail(`${cf}.securityContext.procMount`, 'must be Default', sc.procMount);
      }
      const drop: string[] = sc.capabilities?.drop ?? [];
      if (!drop.includes('ALL')) {
        fail(`${cf}.securityContext.capabilities.drop`, 'must include ALL', sc.capabilities?.drop);
      }
      const add: string[] = sc.capabilities?.add ?? [];
      const extra = add.filter((x) => x !== 'NET_BIND_SERVICE');
      if (extra.length > 0) fail(`${cf}.securityContext.capabilities.add`, 'may only add NET_BIND_SERVICE', extra);
    });
  }
  return issues;
}

function checkSeccomp(profile: Json | undefined, field: string, fail: (f: string, m: string, v?: unknown) => void) {
  if (profile === undefined) return;
  if (!ALLOWED_SECCOMP.includes(profile.type)) fail(field, 'must be RuntimeDefault or Localhost', profile.type);
}

function checkSeLinux(options: Json | undefined, field: string, fail: (f: string, m: string, v?: unknown) => void) {
  if (options === undefined) return;
  if (!ALLOWED_SELINUX_TYPES.includes(options.type ?? '')) {
    fail(`${field}.type`, `must be one of ${ALLOWED_SELINUX_TYPES.filter(Boolean).join(', ')}`, options.type);
  }
  if (options.user) fail(`${field}.user`, 'must not be set', options.user);
  if (options.role) fail(`${field}.role`, 'must not be set', options.role);
}

function checkAppArmor(profile: Json | undefined, field: string, fail: (f: string, m: string, v?: unknown) => void) {
  if (profile?.type === 'Unconfined') fail(field, 'must not be Unconfined', profile.type);
}
