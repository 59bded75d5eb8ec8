import { obj } from './pod-spec-common';
import { everyContainer } from './pod-spec-windows-options';
import { child, forbidden } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';

/*
 * What a pod's declared OS (`spec.os.name`) forbids in its containers' security contexts (validateLinux and
 * validateWindows, their container halves; the pod's own security context is pod-spec-security's concern): Windows
 * options in a Linux pod, the Linux-only settings in a Windows pod. Measured alike on 1.28, 1.32 and 1.36.
 */

/** The container security context fields validateWindows forbids, in its order. */
const LINUX_ONLY = [
  'appArmorProfile',
  'seLinuxOptions',
  'seccompProfile',
  'capabilities',
  'readOnlyRootFilesystem',
  'privileged',
  'allowPrivilegeEscalation',
  'procMount',
  'runAsUser',
  'runAsGroup',
];

/**
 * The containers' (init, regular and ephemeral) security contexts of the pod spec at `specPath` against its OS.
 *
 * @internal
 */
export function containerOsIssues(specPath: string, spec: any): Issue[] {
  const os = obj(spec.os).name;
  if (os !== 'linux' && os !== 'windows') return [];
  return everyContainer(specPath, spec).flatMap(({ path, container }) => {
    if (container.securityContext == null) return [];
    const sc = obj(container.securityContext);
    const at = child(path, 'securityContext');
    if (os === 'linux') {
      return sc.windowsOptions == null
        ? []
        : [forbidden(child(at, 'windowsOptions'), 'windows options cannot be set for a linux pod')];
    }
    return LINUX_ONLY.filter((f) => sc[f] != null).map((f) =>
      forbidden(child(at, f), 'cannot be set for a windows pod'),
    );
  });
}
