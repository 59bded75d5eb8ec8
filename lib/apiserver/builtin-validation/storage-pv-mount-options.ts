import { obj } from './pod-spec-common';
import { child, forbidden } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';

/*
 * The PersistentVolume strategy's second check (pkg/volume/validation's ValidatePersistentVolume, checkMountOption):
 * the beta mount options annotation only on a volume with one of the sources that take mount options, wherever that
 * source is (a second, refused source counts). The `mountOptions` field is not checked. Measured on 1.28, 1.32 and 1.36
 * (storage-differential.test.ts): refused on hostPath, csi, local, flexVolume, storageos and no source; accepted on
 * nfs and beside it.
 */

const ANNOTATION = 'volume.beta.kubernetes.io/mount-options';

const WITH_MOUNT_OPTIONS = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'nfs',
  'rbd',
  'quobyte',
  'iscsi',
  'cinder',
  'cephfs',
  'azureFile',
  'vsphereVolume',
  'azureDisk',
  'photonPersistentDisk',
  'flocker',
  'scaleIO',
  'fc',
  'portworxVolume',
] as const;

/** checkMountOption. */
export function mountOptionIssues(object: any): Issue[] {
  const spec = obj(object?.spec);
  if (!(ANNOTATION in obj(object?.metadata?.annotations))) return [];
  if (WITH_MOUNT_OPTIONS.some((s) => spec[s] != null)) return [];
  return [
    forbidden(child('metadata', 'annotations', ANNOTATION), 'may not specify mount options for this volume type'),
  ];
}
