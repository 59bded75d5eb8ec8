import { arr, hasBacksteps, notFound, obj, str } from './pod-spec-common';
import { child, index, invalid, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';

/*
 * A container's volumeDevices (ValidateVolumeDevices) and their overlap with its volumeMounts (ValidateVolumeMounts'
 * half): a block device comes from a claim (a persistentVolumeClaim or an ephemeral volume), once, at a path of its
 * own, and neither its volume nor its path is also mounted.
 */

/** name → path of a container's mounts or devices (GetVolumeMountMap, GetVolumeDeviceMap: the last one wins). */
function pathsByName(list: unknown, pathField: 'mountPath' | 'devicePath'): Map<string, string> {
  return new Map(arr(list).map((x) => [str(obj(x).name), str(obj(x)[pathField])]));
}

const hasPath = (paths: ReadonlyMap<string, string>, p: string) => [...paths.values()].includes(p);

/**
 * ValidateVolumeDevices of the container `c`'s devices at `path` (`…volumeDevices`), against the volumes without
 * errors.
 *
 * @internal
 */
export function devicesIssues(path: string, c: any, volumes: ReadonlyMap<string, any>): Issue[] {
  const issues: Issue[] = [];
  const mounts = pathsByName(c.volumeMounts, 'mountPath');
  const names = new Set<string>();
  const paths = new Set<string>();
  arr(c.volumeDevices).forEach((raw, i) => {
    const d = obj(raw);
    const at = index(path, i);
    const name = str(d.name);
    const devicePath = str(d.devicePath);
    const volume = volumes.get(name);
    if (name === '') issues.push(required(child(at, 'name')));
    if (names.has(name)) issues.push(invalid(child(at, 'name'), name, 'must be unique'));
    if (volume !== undefined && volume.persistentVolumeClaim == null && volume.ephemeral == null) {
      issues.push(
        invalid(
          child(at, 'name'),
          name,
          'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
        ),
      );
    }
    if (volume === undefined) issues.push(notFound(child(at, 'name'), name));
    if (devicePath === '') issues.push(required(child(at, 'devicePath')));
    if (paths.has(devicePath)) issues.push(invalid(child(at, 'devicePath'), devicePath, 'must be unique'));
    if (devicePath !== '' && hasBacksteps(devicePath)) {
      issues.push(invalid(child(at, 'devicePath'), devicePath, "can not contain backsteps ('..')"));
    } else {
      paths.add(devicePath);
    }
    if (mounts.has(name)) issues.push(invalid(child(at, 'name'), name, 'must not already exist in volumeMounts'));
    if (hasPath(mounts, devicePath)) {
      issues.push(invalid(child(at, 'devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    }
    if (name !== '') names.add(name);
  });
  return issues;
}

/** ValidateVolumeMounts' checks of the mount `m` at `at` against the container `c`'s devices. @internal */
export function mountOverDeviceIssues(at: string, m: any, c: any): Issue[] {
  const devices = pathsByName(c.volumeDevices, 'devicePath');
  const issues: Issue[] = [];
  const name = str(m.name);
  const mountPath = str(m.mountPath);
  if (devices.has(name)) issues.push(invalid(child(at, 'name'), name, 'must not already exist in volumeDevices'));
  if (hasPath(devices, mountPath)) {
    issues.push(invalid(child(at, 'mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
  }
  return issues;
}
